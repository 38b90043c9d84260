// Which symbol holds each of these lines? For every (path, line) the innermost symbol whose [start_line, end_line]
// contains it, else the file's module (module-level code). Maps `path:line` and changed lines of a diff to symbols.
// A row may name its own repository (`repo`: a path:line held by several, listed for the person to choose).
:params {repo: 'tinyshop', rows: [{path: 'shop/cart.py', line: 20}, {path: 'shop/cart.py', line: 2}]};
UNWIND $rows AS row
WITH row, coalesce(row.repo, $repo) AS repo
OPTIONAL MATCH (s:Symbol {repo: repo, path: row.path})
WHERE s.start_line <= row.line <= s.end_line
WITH row, repo, s ORDER BY s.start_line DESC, s.end_line
WITH row, repo, collect(s)[0] AS innermost
OPTIONAL MATCH (m:Module {repo: repo, path: row.path})
WITH row, repo, coalesce(innermost, m) AS holder
WHERE holder IS NOT NULL
RETURN repo, row.path AS path, row.line AS line, holder.qname AS qname, coalesce(holder.kind, 'module') AS kind,
       coalesce(holder.start_line, 1) AS start_line, coalesce(holder.end_line, holder.loc) AS end_line;
