// Which symbol holds each of these lines? For every (path, line) the innermost symbol whose [start_line, end_line]
// contains it, else the file's module (module-level code). Maps `path:line` and changed lines of a diff to symbols.
:params {repo: 'tinyshop', rows: [{path: 'shop/cart.py', line: 20}, {path: 'shop/cart.py', line: 2}]};
UNWIND $rows AS row
OPTIONAL MATCH (s:Symbol {repo: $repo, path: row.path})
WHERE s.start_line <= row.line <= s.end_line
WITH row, s ORDER BY s.start_line DESC, s.end_line
WITH row, collect(s)[0] AS innermost
OPTIONAL MATCH (m:Module {repo: $repo, path: row.path})
WITH row, coalesce(innermost, m) AS holder
WHERE holder IS NOT NULL
RETURN row.path AS path, row.line AS line, holder.qname AS qname, coalesce(holder.kind, 'module') AS kind,
       coalesce(holder.start_line, 1) AS start_line, coalesce(holder.end_line, holder.loc) AS end_line;
