// Which repositories does the graph hold? Name, root folder, role and size of each, and the version of kg's graph
// model it was last written with (null: before versions were recorded), and when a bulk write that has not finished
// started (`writing`, null when the last ingest finished: kg.unfinished) and what it was writing then
// (`writing_step`: nodes, edges or documents; null before steps were recorded).
MATCH (r:Repo)
RETURN r.name AS repo, r.root AS root, r.role AS role, COUNT { (r)-[:CONTAINS]->(:Module) } AS modules,
       r.model AS model, toString(r.writing) AS writing,
       r.writing_step AS writing_step
ORDER BY repo;
