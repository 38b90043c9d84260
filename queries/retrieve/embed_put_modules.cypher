// Store the embeddings of some modules (float32, through db.create.setNodeVectorProperty) with the key of the text
// and model they came from, so an unchanged module is never embedded again.
:param rows => [{key: 'tinyshop:shop/cart.py', vector: [x IN range(1, 384) | 0.05], embed_key: 'abc'}];
UNWIND $rows AS row
MATCH (n:Module {key: row.key})
CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
SET n.embed_key = row.embed_key;
