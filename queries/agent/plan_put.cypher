// Create or update a plan and its planned files (path, description, the planned files it uses, order).
// A file's status is kept when the plan is written again, so re-running a plan never forgets what is done.
:param plan => {id: 'calc-1a2b3c4d', title: 'Calculator', goal: 'A tiny calculator', repo: 'calc', source: 'plan.md', text: '# Calculator'};
:param rows => [{key: 'calc-1a2b3c4d:calc/ops.py', path: 'calc/ops.py', description: 'add and sub', uses: [], ordinal: 0}];
MERGE (p:Plan {id: $plan.id})
ON CREATE SET p.created_at = datetime()
SET p.title = $plan.title, p.goal = $plan.goal, p.repo = $plan.repo, p.source = $plan.source, p.text = $plan.text,
    p.total = size($rows)
WITH p
UNWIND $rows AS row
MERGE (f:PlannedFile {key: row.key})
ON CREATE SET f.status = 'planned'
SET f.plan = p.id, f.path = row.path, f.description = row.description, f.uses = row.uses, f.ordinal = row.ordinal
MERGE (p)-[:HAS_FILE]->(f);
