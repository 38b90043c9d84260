// `kg path` in one request: the two names typed ($symbols: source, target) looked up as find_symbol does, the
// current folder's repository preferred ($here: the folder, null when unknown; $repo given: that one only), and the
// shortest call paths between the symbols so picked (as call_path: at most $depth steps, $evidence, the first
// $limit paths). One row: `candidates` (per name, find_symbol's rows), `repos` (the `repos` rows when $repo is null),
// `picks` (the qname and repo chosen per name; fewer than two: this query could not choose) and `paths`.
// kg/navigate/answers.py checks the choice against kg.navigate.targets.resolve and raises its errors; when they
// disagree it resolves first and runs call_path. The lookup is the one of reach/answer (keep them alike).
:params {symbols: ['tests.test_cart.test_bulk_discount', 'Order.subtotal_cents'], repo: null, here: null, depth: 6, evidence: 'all', limit: 5};
UNWIND range(0, size($symbols) - 1) AS i
CALL (i) {
  WITH $symbols[i] AS text
  MATCH (s:Symbol {name: last(split(text, '.'))})
  WHERE (s.qname = text OR s.qname ENDS WITH '.' + text) AND ($repo IS NULL OR s.repo = $repo)
  RETURN s.repo AS repo, s.qname AS qname, s.kind AS kind, s.path AS path, s.start_line AS line,
         s.end_line AS end_line, s AS node
  UNION
  WITH $symbols[i] AS text
  MATCH (m:Module)
  WHERE (m.qname = text OR m.path = text OR m.qname ENDS WITH '.' + text) AND ($repo IS NULL OR m.repo = $repo)
  RETURN m.repo AS repo, m.qname AS qname, 'module' AS kind, m.path AS path, 1 AS line, m.loc AS end_line, m AS node
}
WITH i, repo, qname, kind, path, line, end_line, node ORDER BY i, repo, qname
WITH i, collect({repo: repo, qname: qname, kind: kind, path: path, line: line, end_line: end_line, node: node})[..100]
     AS found
WITH collect({i: i, found: found}) AS per_name
// the current folder's repository: the innermost whose root holds $here (as kg.navigate.targets.repo_at)
WITH per_name, COLLECT { MATCH (r:Repo) RETURN {repo: r.name, root: r.root, writing: toString(r.writing),
                                                  writing_step: r.writing_step}
                      ORDER BY r.name } AS repos
WITH per_name, repos, [r IN repos WHERE $repo IS NULL AND $here IS NOT NULL AND r.root IS NOT NULL
       AND ($here = r.root OR $here STARTS WITH r.root + CASE WHEN r.root ENDS WITH '/' THEN '' ELSE '/' END)]
     AS holding
WITH per_name, repos, reduce(longest = -1, r IN holding | CASE WHEN size(r.root) > longest THEN size(r.root)
       ELSE longest END) AS longest, holding
WITH per_name, repos, [r IN holding WHERE size(r.root) = longest] AS innermost
WITH per_name, repos, CASE WHEN size(innermost) = 1 THEN innermost[0].repo END AS here_repo
UNWIND range(0, size($symbols) - 1) AS i
WITH per_name, repos, here_repo, i, $symbols[i] AS text,
     coalesce(head([p IN per_name WHERE p.i = i | p.found]), []) AS found
WITH per_name, repos, here_repo, i, text, found, [c IN found WHERE c.qname = text OR c.path = text] AS exact
WITH per_name, repos, here_repo, i, found, CASE WHEN size(exact) > 0 THEN exact ELSE found END AS candidates
WITH per_name, repos, here_repo, i, found,
     coalesce(nullif([c IN candidates WHERE c.repo = here_repo], []), candidates) AS candidates
WITH per_name, repos, here_repo, i, found, candidates, [c IN candidates WHERE c.kind <> 'module'] AS symbols
WITH per_name, repos, here_repo, i, found,
     CASE WHEN size(candidates) = 1 THEN candidates[0]
          WHEN size(symbols) = 1 AND all(c IN candidates WHERE c.qname = symbols[0].qname) THEN symbols[0] END AS pick
ORDER BY i
WITH repos, collect([c IN found | c {.repo, .qname, .kind, .path, .line, .end_line}]) AS candidates,
     collect(pick) AS picks
WITH repos, candidates, picks,
     size(picks) = size($symbols) AND size(reduce(rs = [], p IN picks | CASE WHEN p.repo IN rs THEN rs
       ELSE rs + p.repo END)) = 1 AS chosen
WITH repos, candidates, picks, CASE WHEN chosen THEN picks[0].repo END AS repo,
     CASE WHEN chosen AND all(p IN picks WHERE p.node:Symbol) THEN [p IN picks | p.node] ELSE [] END AS roots
CALL (roots, repo) {
  WITH roots WHERE size(roots) = 2
  WITH roots[0] AS a, roots[1] AS b
  MATCH p = ALL SHORTEST (a)-[r:CALLS WHERE $evidence = 'all'
            OR (r.resolution = 'observed') = ($evidence = 'observed')]->{1,10}(b)
  WHERE length(p) <= $depth
  WITH p, reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
  WITH length(p) AS length, weakest AS confidence,
         [i IN range(0, length(p) - 1) | {caller: nodes(p)[i].qname, callee: nodes(p)[i + 1].qname,
           line: relationships(p)[i].line,
           resolution: CASE WHEN relationships(p)[i].resolution <> 'observed' THEN relationships(p)[i].resolution
             ELSE 'observed' + CASE relationships(p)[i].via WHEN 'library' THEN ' via library' ELSE '' END
               + CASE WHEN EXISTS { MATCH (m:Module {repo: repo})
                                    WHERE (m.path = nodes(p)[i].path AND m.hash <> relationships(p)[i].source_hash)
                                       OR (m.path = nodes(p)[i + 1].path
                                           AND m.hash <> relationships(p)[i].target_hash) }
                      THEN ' (stale)' ELSE '' END END,
           confidence: relationships(p)[i].confidence}] AS steps
  ORDER BY confidence DESC
  LIMIT toInteger($limit)
  RETURN collect({length: length, confidence: confidence, steps: steps}) AS paths
}
RETURN CASE WHEN $repo IS NULL THEN repos END AS repos, candidates, [p IN picks | p {.repo, .qname}] AS picks, paths,
       [r IN repos WHERE r.repo = repo AND r.writing IS NOT NULL][0] AS unfinished;
