// The vector indexes over symbol and module embeddings, with the dimensions of the model in use (cosine).
// Two statements, run in turn (kg.queries.statements).
:param dims => 384;
CREATE VECTOR INDEX symbol_embedding IF NOT EXISTS FOR (n:Symbol) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dims, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX module_embedding IF NOT EXISTS FOR (n:Module) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dims, `vector.similarity_function`: 'cosine'}};
