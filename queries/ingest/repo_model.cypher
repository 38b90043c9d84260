// Which version of kg's graph model, and which parsing code, a repository was last written with (null: before they
// were recorded), and since when a write that has not finished has been writing it (null: none), with the model and
// parsing code that write marks files with (null: not recorded, or it was rewriting an older kg's repository).
:param repo => 'shop';
MATCH (r:Repo {name: $repo})
RETURN r.model AS model, r.parser AS parser, r.writing AS writing, r.writing_model AS writing_model,
       r.writing_parser AS writing_parser;
