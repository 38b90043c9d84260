// Which repositories does the graph hold? Name, root folder, role and size of each.
MATCH (r:Repo)
RETURN r.name AS repo, r.root AS root, r.role AS role, COUNT { (r)-[:CONTAINS]->(:Module) } AS modules
ORDER BY repo;
