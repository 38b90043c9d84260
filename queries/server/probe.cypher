// Does the database answer a read at all? (A panicked database refuses to begin any transaction.)
RETURN 1 AS ok;
