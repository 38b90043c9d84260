"""From a task in words to the code that matters: the task read for code names and words (text), four ranking
signals fused (rank), embeddings kept current in the graph (embed, vectors), and the budgeted context built from
the ranking (context). The CLI, the MCP server and the agent all call `kg.retrieve.search.retrieve`."""
