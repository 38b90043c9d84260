// Record one context built for a task (kg context, the MCP `context` tool, the agent): its tokens against its
// budget, the degradation steps it took and the budget alerts it raised, for `kg tokens report`.
:param call => {id: 'ctx-1', task: 'task-1a2b3c4d5e6f', day: '2026-12-01', at: '2026-12-01T10:00:00+00:00', repo: 'tinyshop', type: 'modify', tokens: 1200, budget: 6000, degradation: [], alerts: [], files: ['shop/cart.py']};
MERGE (c:ContextCall {id: $call.id})
SET c += $call;
