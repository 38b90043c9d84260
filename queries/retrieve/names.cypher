// Which symbols and modules carry exactly these names? The code names a task mentions (`cached_eval`,
// `Cart.checkout`, `shop/cart.py`, `shop.cart`) looked up exactly: symbols by their name (a dotted mention must
// also match the end of the dotted name to count as `qualified`), modules by path or dotted name (`$leaves`: each
// text's last path part and last dotted part → the texts, built by kg.retrieve.rank.module_leaves).
:param repo => 'tinyshop';
:param names => ['apply_discounts', 'Cart.checkout'];
:param leaves => {`cart.py`: ['shop/cart.py'], pricing: ['pricing']};
:param per_name => 50;
UNWIND $names AS text
CALL (text) {
  MATCH (s:Symbol {name: last(split(text, '.'))})
  WHERE s.repo = $repo
  RETURN s
  LIMIT $per_name
}
RETURN text, s.path AS path, s.qname AS qname, s.kind AS kind,
       (s.qname = text OR s.qname ENDS WITH '.' + text) AS qualified
UNION ALL
// Modules in one pass over the repository's modules (not one pass per text: a task sends ~50 words): a module can
// match a text only if their last path parts or last dotted parts agree, so `$leaves` maps each such part to the
// texts ending in it, and only those few are compared in full.
MATCH (m:Module {repo: $repo})
UNWIND coalesce($leaves[last(split(m.path, '/'))], []) + coalesce($leaves[last(split(m.qname, '.'))], []) AS text
WITH DISTINCT text, m
WHERE m.path = text OR m.path ENDS WITH '/' + text OR m.qname = text OR m.qname ENDS WITH '.' + text
WITH text, collect(m)[..$per_name] AS modules
UNWIND modules AS m
RETURN text, m.path AS path, m.qname AS qname, 'module' AS kind, true AS qualified;
