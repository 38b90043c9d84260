// Create or replace non-code documents (README, docs, YAML/TOML/JSON config, requirements, Dockerfiles) and
// their chunks, cut by heading or top-level key.
:param repo => 'flask';
:param rows => [{key: 'flask:README.md', path: 'README.md', kind: 'markdown', title: 'Flask', error: null, chunks: [{ordinal: 0, heading: 'Flask', text: '# Flask', start_line: 1, end_line: 1}]}];
MATCH (r:Repo {name: $repo})
UNWIND $rows AS row
MERGE (d:Document {key: row.key})
SET d.repo = $repo, d.path = row.path, d.kind = row.kind, d.title = row.title, d.error = row.error
MERGE (r)-[:CONTAINS]->(d)
WITH d, row
CALL (d) {
  MATCH (d)-[:HAS_CHUNK]->(old:Chunk)
  DETACH DELETE old
}
WITH d, row
UNWIND row.chunks AS chunk
CREATE (c:Chunk {key: row.key + '#' + toString(chunk.ordinal)})
SET c.ordinal = chunk.ordinal, c.heading = chunk.heading, c.text = chunk.text,
    c.start_line = chunk.start_line, c.end_line = chunk.end_line, c.path = row.path, c.repo = $repo
CREATE (d)-[:HAS_CHUNK]->(c);
