// Store which reference module informs which planned file, how (type), how surely (confidence), with what
// (aspects) and how to use it (suggestion), and by which method it was found (signals, or llm).
:param rows => [{module: 'tinyshop:shop/cart.py', planned: 'calc-1a2b3c4d:calc/ops.py', type: 'reference', confidence: 0.5, aspects: ['Cart.total'], suggestion: 'read tinyshop:shop/cart.py', method: 'fulltext+names'}];
UNWIND $rows AS row
MATCH (m:Module {key: row.module})
MATCH (f:PlannedFile {key: row.planned})
MERGE (m)-[r:INFORMS]->(f)
SET r.type = row.type, r.confidence = row.confidence, r.aspects = row.aspects, r.suggestion = row.suggestion,
    r.method = row.method;
