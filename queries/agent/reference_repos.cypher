// The repositories ingested with role `reference` (code to learn from).
MATCH (r:Repo {role: 'reference'})
RETURN r.name AS name, r.root AS root
ORDER BY name;
