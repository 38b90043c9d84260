// How far is a repository indexed for retrieval? Its root folder and last ingest, its files, how many of them
// carry an embedding, and how many repositories share the vector indexes. Embedded modules are counted by their
// `embed_key`, written and removed with the vector (counting the vectors themselves reads 384 floats a module).
:param repo => 'tinyshop';
OPTIONAL MATCH (r:Repo {name: $repo})
OPTIONAL MATCH (m:Module {repo: $repo})
RETURN r IS NOT NULL AS exists, r.role AS role, r.root AS root, r.ingested_at AS ingested_at, count(m) AS files,
       count(m.embed_key) AS embedded, COUNT { (:Repo) } AS repos;
