// Which version of kg's graph model, and which parsing code, a repository was last written with (null: before they
// were recorded), and since when a write that has not finished has been writing it (null: none).
:param repo => 'shop';
MATCH (r:Repo {name: $repo})
RETURN r.model AS model, r.parser AS parser, r.writing AS writing;
