"""Navigation and impact: callers, callees, blast radius, call paths, tests to run, cycles, dead code, hotspots.

`targets` turns what a person types into one node, `answers` runs the named queries in queries/ and shapes the
rows, `changes` maps a git diff onto the graph, `render` draws answers, and `cli` / `mcp_server` are thin fronts
over the same functions, so a person in a terminal and an agent over MCP get the same answers.
"""
