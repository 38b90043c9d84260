// One symbol as `kg memory show` prints it: signature, first docstring line, where it is.
:param key => 'tinyshop:shop.cart.Cart.checkout';
MATCH (s:Symbol {key: $key})
RETURN s.signature AS signature, s.doc AS doc, s.start_line AS start_line, s.end_line AS end_line;
