// Which memory items an agent's context showed in one turn: (:Run)-[:LOADED]->(item), counted per run, so the audit
// can tell which decisions no agent ever reads.
:param run => 'run-20260101-120000-ab12';
:param turn => 1;
:param ids => ['dec-0123456789ab'];
MATCH (r:Run {id: $run})
UNWIND $ids AS id
CALL (id) {
  MATCH (d:Decision {id: id}) RETURN d
  UNION
  MATCH (d:Knowledge {id: id}) RETURN d
}
MERGE (r)-[l:LOADED]->(d)
ON CREATE SET l.first_turn = $turn, l.turns = 0
SET l.turns = l.turns + 1, l.last_turn = $turn;
