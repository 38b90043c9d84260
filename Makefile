# The two commands a fresh machine needs: `make demo` (set up, start Neo4j, run kg on the bundled example)
# and `make test` (the whole test suite against a real Neo4j).
VENV ?= .venv
KG := $(VENV)/bin/kg

.PHONY: setup demo test lint clean-graph

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	@# setuptools warns at length that an editable install maps folders (ingest/ → kg.ingest): that mapping is kg's
	@# layout on purpose (pyproject's package-dir), so the warning is silenced by its message, nothing else.
	PYTHONWARNINGS="ignore:Editable installation" $(VENV)/bin/pip install --quiet -e '.[test,embed]'
	touch $@

# Repeatable: every question names the repository (another copy of the example in the graph is no ambiguity), the
# agent's run starts fresh in a new workspace, and the token report shows that run.
DEMO_LLM_PORT ?= 8099
demo: setup
	$(KG) server start
	$(KG) init
	$(KG) ingest examples/tinyshop --repo tinyshop
	$(KG) callers shop.pricing.apply_discounts --repo tinyshop
	$(KG) callees Cart.checkout --repo tinyshop
	$(KG) impact OrderStore.save --depth 3 --repo tinyshop
	$(KG) tests-for apply_discounts --repo tinyshop
	$(KG) dead-code --repo tinyshop --public
	$(KG) find chekout --repo tinyshop
	rm -rf .kg/demo-workspace
	@echo "The agent's LLM is a recorded transcript; in it the model once claims to be done early (turn 5), and kg"
	@echo "answers with an error and goes on, since the run ends only when every planned file exists."
	$(VENV)/bin/python -m kg.agent.testing examples/plans/calculator.transcript.json --port $(DEMO_LLM_PORT) & \
	  replay=$$!; trap "kill $$replay" EXIT; sleep 1; \
	  $(KG) agent run --plan examples/plans/calculator.md --workspace .kg/demo-workspace --model replay \
	    --base-url http://127.0.0.1:$(DEMO_LLM_PORT)/v1 && $(KG) tokens report --by segment
	@echo "Next: $(KG) browser --open   (Neo4j Browser with kg's guide to these questions, drawn as graphs)"

test: setup
	$(VENV)/bin/pytest

lint: setup
	$(VENV)/bin/ruff check .
