"""Architecture review: `kg review` reads the graph's DEPENDS_ON layer (derived by ingest), checks it against the
rules in `.agent/architecture.yaml`, and writes one self-contained HTML page (or JSON, or a CI verdict).

    rules.py     architecture.yaml → validated rules → query parameters
    collect.py   the named queries of queries/review/ (+ networkx, git) → a Review of plain data
    analysis.py  networkx: cycles and edges to cut, hotspots, the package view
    history.py   git: revision and churn (through kg.git)
    compare.py   an earlier review or a baseline → what got better, worse, or is new
    diagram.py   the package diagram as SVG (Graphviz dot, or a built-in layered layout)
    page.py      the HTML page
    cli.py       the `kg review` command
"""
