// The indexes the graph has; a uniqueness constraint shows as the index that backs it (same name).
SHOW INDEXES YIELD name, type, owningConstraint
RETURN name, CASE WHEN owningConstraint IS NULL THEN 'index' ELSE 'constraint' END AS object, type
ORDER BY name;
