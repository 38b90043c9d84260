// Where is this name defined? Symbols whose dotted name is exactly $symbol or ends with it at a dot boundary
// (`Cart.checkout` finds `shop.cart.Cart.checkout`), plus modules whose dotted name or file path is $symbol.
// $repo null searches every repository. Used to turn what a person types into one symbol.
:params {symbol: 'Cart.checkout', repo: null, limit: 50};
MATCH (s:Symbol {name: last(split($symbol, '.'))})
WHERE (s.qname = $symbol OR s.qname ENDS WITH '.' + $symbol) AND ($repo IS NULL OR s.repo = $repo)
RETURN s.repo AS repo, s.qname AS qname, s.kind AS kind, s.path AS path, s.start_line AS line,
       s.end_line AS end_line, s.signature AS signature
UNION
MATCH (m:Module)
WHERE (m.qname = $symbol OR m.path = $symbol OR m.qname ENDS WITH '.' + $symbol) AND ($repo IS NULL OR m.repo = $repo)
RETURN m.repo AS repo, m.qname AS qname, 'module' AS kind, m.path AS path, 1 AS line, m.loc AS end_line,
       null AS signature
ORDER BY repo, qname
LIMIT toInteger($limit);
