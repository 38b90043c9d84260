// Which version of kg's graph model, and which parsing code, a repository was last written with (null: before they
// were recorded).
:param repo => 'shop';
MATCH (r:Repo {name: $repo})
RETURN r.model AS model, r.parser AS parser;
