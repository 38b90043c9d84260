// The content hash of these modules (keys `<repo>:<path>`), so an LLM verdict about one is asked again only
// when the file changed.
:param keys => ['tinyshop:shop/cart.py'];
UNWIND $keys AS key
MATCH (m:Module {key: key})
RETURN m.repo AS repo, m.path AS path, m.hash AS hash;
