// Who calls these symbols and what do they call, up to $depth steps (1 or 2)? One row per neighbour, at its
// shortest distance, with a place in the neighbour's own file (a caller: the line of its call; a callee: the line
// that defines it, since the call's line is in the caller's file) and how sure the edge is.
:param repo => 'tinyshop';
:param qnames => ['shop.cart.Cart.checkout'];
:param depth => 1;
:param limit => 40;
UNWIND $qnames AS qname
MATCH (s:Symbol {key: $repo + ':' + qname})
CALL (s) {
  MATCH p = (s)<-[:CALLS]-{1,2}(n)
  WHERE length(p) <= $depth AND n <> s
  WITH n, p, last(relationships(p)) AS r
  RETURN 'caller' AS direction, n, length(p) AS hops, r.confidence AS confidence, r.line AS line
  UNION ALL
  MATCH p = (s)-[:CALLS]->{1,2}(n:Symbol)
  WHERE length(p) <= $depth AND n <> s
  WITH n, p, last(relationships(p)) AS r
  RETURN 'callee' AS direction, n, length(p) AS hops, r.confidence AS confidence, n.start_line AS line
}
WITH qname, direction, n, min(hops) AS hops, min(confidence) AS confidence, min(line) AS line
RETURN qname AS symbol, direction, coalesce(n.qname, n.name) AS other, n.path AS path, line, hops, confidence
ORDER BY hops, direction, confidence DESC, other
LIMIT $limit;
