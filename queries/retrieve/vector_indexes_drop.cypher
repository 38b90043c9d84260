// Drop the two embedding vector indexes (their dimensions no longer match the model); embed_clear then forgets
// the vectors of the old size. Two statements, run in turn.
DROP INDEX symbol_embedding IF EXISTS;
DROP INDEX module_embedding IF EXISTS;
