// Remove the INFORMS edges into a plan's files, before `kg relate` stores the current ones.
:param plan => 'calc-1a2b3c4d';
MATCH (:Plan {id: $plan})-[:HAS_FILE]->(f:PlannedFile)<-[r:INFORMS]-(:Module)
DELETE r;
