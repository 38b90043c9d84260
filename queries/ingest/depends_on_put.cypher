// Derive the DEPENDS_ON edges going out of some files' modules, replacing the old ones. Module a depends on module b
// when a's module or symbols IMPORT b or one of b's symbols, INHERIT from a class of b, or CALL into b with certainty
// (confidence 1: no name-only guesses; calls `kg observe` saw at run time are left out, so DEPENDS_ON stays what the
// code says, the same whether or not a test run was observed). weight counts those edges, kinds says which of the three
// there are, line is a's first IMPORTS line into b that runs (null when a only calls or inherits), deferred is true
// when every such import sits inside a function (it runs when called, not when a is imported), type_only is true when
// every import sits under `if TYPE_CHECKING:` (it never runs: no import cycle); imports under `if TYPE_CHECKING:`
// count for line and deferred only when a has no other import of b. A file's DEPENDS_ON come from its
// own outgoing edges only, so rewriting one file's edges rewrites only its own DEPENDS_ON (no global recompute).
:param repo => 'shop';
:param rows => [{path: 'shop/cart.py'}];
UNWIND $rows AS row
MATCH (m:Module {repo: $repo, path: row.path})
USING INDEX m:Module(repo, path)
CALL (m) {
  MATCH (m)-[old:DEPENDS_ON]->()
  DELETE old
}
CALL (m, row) {
  // The lines of the file's function bodies: an import on one of them runs only when the function is called
  // (parsers may attach such an import to the module).
  CALL (row) {
    OPTIONAL MATCH (f:Symbol {repo: $repo, path: row.path})
    USING INDEX f:Symbol(repo, path)
    WHERE f:Function OR f:Method
    RETURN [f IN collect(f) | [f.start_line, f.end_line]] AS bodies
  }
  CALL (row) {
    MATCH (sm:Module {repo: $repo, path: row.path})-[r:IMPORTS|INHERITS|CALLS]->(t:Module|Symbol)
    USING INDEX sm:Module(repo, path)
    RETURN r, t
    UNION ALL
    MATCH (ss:Symbol {repo: $repo, path: row.path})-[r:IMPORTS|INHERITS|CALLS]->(t:Module|Symbol)
    USING INDEX ss:Symbol(repo, path)
    RETURN r, t
  }
  WITH r, t, bodies
  WHERE t.repo = $repo AND t.path <> row.path
    AND (type(r) <> 'CALLS' OR (r.confidence >= 1.0 AND coalesce(r.resolution, '') <> 'observed'))
  WITH r, t, CASE WHEN type(r) = 'IMPORTS' THEN any(b IN bodies WHERE b[0] < r.line <= b[1]) END AS inside
  WITH r, t, inside, type(r) = 'IMPORTS' AND NOT coalesce(r.type_only, false) AS runs
  WITH t.path AS path, collect(type(r)) AS types, count(*) AS weight,
       min(CASE WHEN runs THEN r.line END) AS run_line,
       min(CASE WHEN type(r) = 'IMPORTS' THEN r.line END) AS any_line,
       min(CASE WHEN runs THEN CASE WHEN inside THEN 1 ELSE 0 END END) AS run_deferred,
       min(CASE WHEN type(r) = 'IMPORTS' THEN CASE WHEN inside THEN 1 ELSE 0 END END) AS any_deferred,
       min(CASE WHEN type(r) = 'IMPORTS' THEN CASE WHEN r.type_only THEN 1 ELSE 0 END END) AS type_only
  MATCH (d:Module {repo: $repo, path: path})
  USING INDEX d:Module(repo, path)
  CREATE (m)-[dep:DEPENDS_ON]->(d)
  SET dep.weight = weight, dep.kinds = [k IN ['IMPORTS', 'INHERITS', 'CALLS'] WHERE k IN types],
      dep.line = coalesce(run_line, any_line), dep.deferred = coalesce(run_deferred, any_deferred) = 1,
      dep.type_only = type_only = 1
};
