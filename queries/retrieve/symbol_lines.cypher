// Where are these symbols (file and lines), so their source can be read from the repository?
:param repo => 'tinyshop';
:param qnames => ['shop.cart.Cart.checkout'];
UNWIND $qnames AS qname
MATCH (s:Symbol {key: $repo + ':' + qname})
RETURN s.qname AS qname, s.path AS path, s.start_line AS line, s.end_line AS end_line;
