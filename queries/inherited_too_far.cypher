// Does a class named $owner (its dotted name, or the end of it) have bases more than 10 steps up, beyond where
// queries/inherited_member.cypher looks for a member it inherits? Asked only when that lookup found nothing, so the
// error can say a base was too far rather than that the name does not exist. $repo null: every repository.
:params {owner: 'JsonOrderStore', repo: null};
MATCH (c:Symbol {name: last(split($owner, '.'))})
WHERE c:Class AND (c.qname = $owner OR c.qname ENDS WITH '.' + $owner) AND ($repo IS NULL OR c.repo = $repo)
MATCH (c)-[:INHERITS]->{10}(:Class)-[:INHERITS]->(:Class)
RETURN DISTINCT c.repo AS repo, c.qname AS owner
ORDER BY repo, owner
LIMIT 5;
