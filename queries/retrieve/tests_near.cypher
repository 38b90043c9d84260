// Which tests call these symbols, directly or through one helper? Test functions and methods (named test*) that
// reach them through at most two CALLS edges: the cheap, bounded cousin of `tests_for` for a context that must
// answer in a fraction of a second (`kg tests-for` follows fixtures, overrides and deeper chains).
:param repo => 'tinyshop';
:param qnames => ['shop.cart.Cart.checkout'];
:param limit => 15;
UNWIND $qnames AS qname
MATCH (s:Symbol {key: $repo + ':' + qname})
MATCH p = (t:Symbol)-[:CALLS]->{1,2}(s)
WHERE t.repo = $repo AND t.kind IN ['function', 'method'] AND t.name STARTS WITH 'test'
WITH t, min(length(p)) AS hops, collect(DISTINCT qname)[..3] AS reaches
RETURN t.qname AS test, t.path AS path, t.start_line AS line, hops, reaches
ORDER BY hops, path, line
LIMIT $limit;
