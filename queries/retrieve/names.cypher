// Which symbols and modules carry exactly these names? The code names a task mentions (`cached_eval`,
// `Cart.checkout`, `shop/cart.py`, `shop.cart`) looked up exactly: symbols by their name (a dotted mention must
// also match the end of the dotted name to count as `qualified`), modules by path or dotted name.
:param repo => 'tinyshop';
:param names => ['apply_discounts', 'Cart.checkout'];
:param modules => ['shop/cart.py', 'pricing'];
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
UNWIND $modules AS text
CALL (text) {
  MATCH (m:Module {repo: $repo})
  WHERE m.path = text OR m.path ENDS WITH '/' + text OR m.qname = text OR m.qname ENDS WITH '.' + text
  RETURN m
  LIMIT $per_name
}
RETURN text, m.path AS path, m.qname AS qname, 'module' AS kind, true AS qualified;
