# The two commands a fresh machine needs: `make demo` (set up, start Neo4j, run kg on the bundled example)
# and `make test` (the whole test suite against a real Neo4j).
VENV ?= .venv
KG := $(VENV)/bin/kg

.PHONY: setup demo test lint clean-graph

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

demo: setup
	$(KG) server start
	$(KG) init
	$(KG) ingest examples/tinyshop
	$(KG) status

test: setup
	$(VENV)/bin/pytest

lint: setup
	$(VENV)/bin/ruff check .
