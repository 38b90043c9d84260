// The vector indexes kg made for embeddings, with their dimensions (a model change can make them wrong).
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options, state
WHERE name IN ['symbol_embedding', 'module_embedding']
RETURN name, labelsOrTypes[0] AS label, options.indexConfig.`vector.dimensions` AS dims, state;
