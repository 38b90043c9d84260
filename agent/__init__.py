"""kg's coding agent: a plan-driven loop whose prompt is rebuilt from the graph every turn.

One job per module: `plan` parses a plan, `records` keeps plans, runs, turns and decisions in the graph, `context`
assembles the prompt from named Cypher queries, `tokens` counts it, `llm` talks to an OpenAI-compatible endpoint,
`tools` executes the one tool call of a turn inside a `workspace`, `summaries` describes written modules, `guards`
decides when to stop, `loop` ties them together and `cli` exposes it as `kg agent`, `kg tokens`, `kg context`.
"""
