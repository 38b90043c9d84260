// How many relationships of each type the graph holds.
MATCH ()-[r]->()
RETURN type(r) AS type, count(*) AS count
ORDER BY type;
