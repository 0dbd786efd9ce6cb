# The front door: `make run` starts Airflow with the example pipeline, `make test` installs and runs the tests.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test test-fast lint bench check-java clean

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) is required (Python 3.11)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --constraint constraints.txt --editable '.[test]'
	@touch $(STAMP)

install: $(STAMP) check-java

# Spark needs a Java 17 runtime; say how to get one instead of failing deep inside a test.
check-java:
	@java -version >/dev/null 2>&1 || { \
	  echo "Java 17 is required by Spark. Install it, e.g.: sudo apt-get install -y openjdk-17-jre-headless"; \
	  exit 1; }

test: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup

test-fast: install
	$(BIN)/python -m pytest -n 2 -m "not slow"

lint: install
	$(BIN)/ruff check src tests benchmarks dags
	$(BIN)/mypy

bench: install
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info
