// How are these files tied to the rest of the repository? Every CALLS, IMPORTS and INHERITS edge leaving or
// entering them (from the module or any of its symbols), counted per pair of files, for the graph ranking.
:param repo => 'tinyshop';
:param paths => ['shop/cart.py'];
UNWIND $paths AS path
CALL (path) {
  MATCH (:Module {repo: $repo, path: path})-[r:CALLS|IMPORTS|INHERITS]->(b)
  RETURN path AS src, b.path AS dst, type(r) AS type
  UNION ALL
  MATCH (:Symbol {repo: $repo, path: path})-[r:CALLS|IMPORTS|INHERITS]->(b)
  RETURN path AS src, b.path AS dst, type(r) AS type
  UNION ALL
  MATCH (a)-[r:CALLS|IMPORTS|INHERITS]->(:Module {repo: $repo, path: path})
  RETURN a.path AS src, path AS dst, type(r) AS type
  UNION ALL
  MATCH (a)-[r:CALLS|IMPORTS|INHERITS]->(:Symbol {repo: $repo, path: path})
  RETURN a.path AS src, path AS dst, type(r) AS type
}
WITH src, dst, type
WHERE src IS NOT NULL AND dst IS NOT NULL AND src <> dst
RETURN src, dst, type, count(*) AS n;
