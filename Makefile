# The two commands a fresh machine needs: `make demo` (set up, start Neo4j, run kg on the bundled example)
# and `make test` (the whole test suite against a real Neo4j).
VENV ?= .venv
KG := $(VENV)/bin/kg

.PHONY: setup demo test lint clean-graph

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test,embed]'
	touch $@

demo: setup
	$(KG) server start
	$(KG) init
	$(KG) ingest examples/tinyshop
	$(KG) callers shop.pricing.apply_discounts
	$(KG) impact OrderStore.save --depth 3
	$(KG) tests-for apply_discounts
	$(KG) dead-code --repo tinyshop
	rm -rf .kg/demo-workspace
	$(VENV)/bin/python -m kg.agent.testing examples/plans/calculator.transcript.json --port 8099 & \
	  replay=$$!; trap "kill $$replay" EXIT; sleep 1; \
	  $(KG) agent run --plan examples/plans/calculator.md --workspace .kg/demo-workspace --model replay \
	    --base-url http://127.0.0.1:8099/v1 && $(KG) tokens report --by segment

test: setup
	$(VENV)/bin/pytest

lint: setup
	$(VENV)/bin/ruff check .
