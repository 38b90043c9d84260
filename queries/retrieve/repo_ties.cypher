// How is every file of a repository tied to the others? Each CALLS, IMPORTS and INHERITS edge leaving a module or
// symbol of the repository, counted per pair of files and type. Ingest writes these edges only from a
// repository's own modules and symbols, to its own or to Externals (which have no path), so this table holds every
// tie `retrieve/neighbourhood` can find; a warm process keeps it per repository revision (kg.retrieve.ties).
:param repo => 'tinyshop';
MATCH (x:Module|Symbol {repo: $repo})-[r:CALLS|IMPORTS|INHERITS]->(b)
WITH x.path AS src, b.path AS dst, type(r) AS type
WHERE src IS NOT NULL AND dst IS NOT NULL AND src <> dst
RETURN src, dst, type, count(*) AS n;
