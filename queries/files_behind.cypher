// Is the graph behind the working tree for these files of a diff? For each path: the content hash the graph holds
// (null: written only in part, or no module at all) and whether the repository has other modules with the same
// suffix (a new file kg would parse, not ingested yet). `kg changes` compares the hash with the file's bytes now.
:params {repo: 'tinyshop', rows: [{path: 'shop/cart.py', suffix: '.py'}]};
UNWIND $rows AS row
OPTIONAL MATCH (m:Module {key: $repo + ':' + row.path})
RETURN row.path AS path, m IS NOT NULL AS known, m.hash AS hash,
       m IS NULL AND row.suffix <> '' AND EXISTS {
         MATCH (o:Module {repo: $repo}) WHERE o.path ENDS WITH row.suffix
       } AS parseable;
