# The front door: `make run` starts Airflow with the example pipeline, `make test` installs and runs the tests.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv install test test-fast lint bench check-java jars run clean

# The JVM jars the product, its tests and benchmarks need beyond pyspark's (s3a://, the in-process HDFS clusters,
# DistCp, JDBC drivers, openlineage-spark for the lineage comparison, the stock Apache Falcon 0.9 CLI),
# pinned in deps/maven/*.pom.xml and resolved once from Maven Central by Maven (checksums enforced) into this
# cache, outside the repository. FALCON_AIRFLOW_JARS points the product at the same folder.
JARS_DIR ?= $(or $(FALCON_AIRFLOW_JARS),$(HOME)/.cache/falcon-airflow/jars)
JAR_GROUPS := s3a minicluster minikdc distcp mapreduce jdbc openlineage-spark falcon-cli
JAR_STAMPS := $(foreach group,$(JAR_GROUPS),$(JARS_DIR)/$(group)/.resolved)
# The sandbox's S3-compatible server (moto) lives in a virtualenv of its own, see deps/s3-server.txt.
S3_VENV := .venv-s3
S3_STAMP := $(S3_VENV)/.installed
KERBEROS_STAMP := $(VENV)/.kerberos

# `make run`: Airflow (api-server, scheduler, dag-processor, triggerer; LocalExecutor on SQLite) with the example
# entities; data under /tmp/falcon-airflow, Airflow's home in airflow-home/, lineage events in airflow-home/lineage.
# RUN_HOME, RUN_PORT and RUN_ENTITIES choose another home, port and entities folder (the UI test uses them); another
# home without RUN_ENTITIES runs its own copy of the example, <home>/entities, writing under <home>/storage, so two
# deployments on one machine never share data (falcon_airflow/sandbox/example.py, which also refuses to start a
# deployment on storage another existing home uses).
# RUN_CATCHUP=True runs every past instance inside the entities' validity instead of only the latest one.
DEFAULT_RUN_HOME := $(CURDIR)/airflow-home
RUN_HOME ?= $(DEFAULT_RUN_HOME)
RUN_PORT ?= 8080
RUN_ENTITIES ?= $(if $(filter $(DEFAULT_RUN_HOME),$(abspath $(RUN_HOME))),$(CURDIR)/entities,$(abspath $(RUN_HOME))/entities)
RUN_CATCHUP ?= False
# Running tasks' logs are served to the api-server from 127.0.0.1 only, on a port that follows RUN_PORT.
RUN_LOG_PORT ?= $(shell echo $$(( $(RUN_PORT) + 713 )))
# The embedded metadata database, unless the environment names another: SQLite in Airflow's home, in write-ahead
# log mode and with a long busy wait, so five processes writing to it queue instead of failing (see
# falcon_airflow/provider/embedded_database.py).
RUN_SQLITE := $(if $(AIRFLOW__DATABASE__SQL_ALCHEMY_CONN),,$(RUN_HOME)/airflow.db)
# The store in the metadata database (SQLite here): the server writes it, the dag-processor and the workers read it
# through the store's DAG bundle, which compiles the entities folder with it (docs/server.md).
RUN_BUNDLES := [{"name": "falcon-store", "classpath": "falcon_airflow.dags.store_bundle.FalconStoreBundle", \
  "kwargs": {"refresh_interval": 10}}, \
  {"name": "dags-folder", "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle", "kwargs": {}}]
RUN_ENV := AIRFLOW_HOME=$(RUN_HOME) \
	$(if $(RUN_SQLITE),AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS=falcon_airflow.provider.embedded_database.CONNECT_ARGS \
	  AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS_ASYNC=falcon_airflow.provider.embedded_database.CONNECT_ARGS) \
	AIRFLOW__CORE__DAGS_FOLDER=$(CURDIR)/dags \
	FALCON_ENTITIES_DIR=$(RUN_ENTITIES) \
	AIRFLOW__CORE__LOAD_EXAMPLES=False \
	AIRFLOW__CORE__EXECUTOR=LocalExecutor \
	AIRFLOW__CORE__AUTH_MANAGER=airflow.api_fastapi.auth.managers.simple.simple_auth_manager.SimpleAuthManager \
	AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION=False \
	AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS=admin:admin \
	AIRFLOW__CORE__PARALLELISM=4 \
	AIRFLOW__WORKERS__EXECUTION_API_TIMEOUT=30 \
	AIRFLOW__API__HOST=127.0.0.1 \
	AIRFLOW__API__PORT=$(RUN_PORT) \
	AIRFLOW__API__BASE_URL=http://127.0.0.1:$(RUN_PORT) \
	AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL=30 \
	AIRFLOW__FALCON__CATCHUP=$(RUN_CATCHUP) \
	AIRFLOW__FALCON__AUTHENTICATION=simple \
	AIRFLOW__FALCON__AIRFLOW_USER=admin \
	AIRFLOW__FALCON__STORE=database \
	AIRFLOW__FALCON__STORE_URL=http://127.0.0.1:$(RUN_PORT)/falcon \
	AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST='$(RUN_BUNDLES)' \
	AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_STORAGE_PATH=$(RUN_HOME)/dag-bundles \
	AIRFLOW__CORE__HOSTNAME_CALLABLE=falcon_airflow.provider.loopback.loopback_hostname \
	AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT=$(RUN_LOG_PORT) \
	AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT=$(RUN_LOG_PORT) \
	AIRFLOW__OPENLINEAGE__TRANSPORT='{"type": "file", "log_file_path": "$(RUN_HOME)/lineage/events.jsonl", "append": true}' \
	PATH=$(CURDIR)/$(BIN):$$PATH

# `make venv`: the Python part alone - the virtualenv with the project and its test extras (Airflow, pyspark, the
# linters). Enough for `make lint`; `make install` adds Java, the jar cache and the sandbox's S3 server.
venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) is required (Python 3.11)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --constraint constraints.txt --editable '.[test]'
	@touch $(STAMP)

install: venv check-java jars $(S3_STAMP) $(KERBEROS_STAMP)

jars: $(JAR_STAMPS)

# One folder per group, so a spark-submit gets only the s3a jars and the sandbox only the minicluster's.
$(JARS_DIR)/%/.resolved: deps/maven/%.pom.xml
	@command -v mvn >/dev/null || { echo "Maven is required to fetch the JVM jars: sudo apt-get install -y maven"; exit 1; }
	rm -rf $(JARS_DIR)/$*
	mvn --batch-mode --quiet -Dstyle.color=never --strict-checksums -f $< dependency:copy-dependencies \
	  -DincludeScope=runtime -DoutputDirectory=$(JARS_DIR)/$*
	@touch $@

# The kerberos extra (gssapi, requests-gssapi: the Airflow side's WebHDFS on Kerberized clusters and the secure
# sandbox's tests). gssapi has no Linux wheel: it builds against MIT Kerberos' development files. Without them the
# rest installs and runs (make run needs no Kerberos); the secure sandbox's tests then fail saying what is missing.
$(KERBEROS_STAMP): $(STAMP)
	@if command -v krb5-config >/dev/null; then \
	  $(BIN)/python -m pip install --quiet --constraint constraints.txt --editable '.[kerberos]' && touch $@; \
	else \
	  echo "note: the kerberos extra (Kerberized HDFS from the Airflow side, the secure sandbox's tests) is not installed: building gssapi needs MIT Kerberos' development files (apt-get install -y libkrb5-dev)"; \
	fi

$(S3_STAMP): deps/s3-server.txt
	test -x $(S3_VENV)/bin/python || $(PYTHON) -m venv $(S3_VENV)
	$(S3_VENV)/bin/python -m pip install --quiet --no-deps --requirement deps/s3-server.txt
	@touch $@

# Spark needs a Java 17 runtime; say how to get one instead of failing deep inside a test.
check-java:
	@java -version >/dev/null 2>&1 || { \
	  echo "Java 17 is required by Spark. Install it, e.g.: sudo apt-get install -y openjdk-17-jre-headless"; \
	  exit 1; }

test: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup --durations=30 --junitxml=.pytest-results.xml

test-fast: install
	$(BIN)/python -m pytest -n 2 -m "not slow and not sandbox"

# The checks need the virtualenv only (no Java, no jars), so CI runs them first; .pre-commit-config.yaml runs the
# same three before a commit.
lint: venv
	$(BIN)/ruff check src tests benchmarks dags
	$(BIN)/mypy
	$(BIN)/lint-imports

# `make bench` runs every benchmark at a quick, CI-sized scale; `make bench BENCH_SCALE=1` at the full scale the
# figures in benchmarks/results/ were measured at (FALCON_BENCH_SCALE for each benchmark).
BENCH_SCALE ?= 0.2
bench: install
	FALCON_BENCH_SCALE=$(BENCH_SCALE) $(BIN)/python -m benchmarks

# The components start one by one (not `airflow standalone`): workers report to the api-server, so the scheduler
# starts once it answers. Logs are local files; the api-server reads a running task's log from a log server, which
# runs here bound to 127.0.0.1 (Airflow's own would listen on every interface), every component naming itself
# 127.0.0.1 so that the log URLs point at it.
run: install
	@mkdir -p $(RUN_HOME)/lineage
	@$(BIN)/python -m falcon_airflow.sandbox.example --home $(RUN_HOME) --entities $(RUN_ENTITIES) --example $(CURDIR)/entities
	@$(BIN)/python entities/apps/seed_shop_db.py $(RUN_ENTITIES)  # the example import's database, where its datasource says
	@test -f $(RUN_HOME)/simple_auth_manager_passwords.json.generated || \
	  echo '{"admin": "admin"}' > $(RUN_HOME)/simple_auth_manager_passwords.json.generated
	@$(RUN_ENV) $(BIN)/python -m falcon_airflow.validation.prepare $(RUN_ENTITIES)
	@echo "airflow db migrate (output in $(RUN_HOME)/db-migrate.log)"
	@$(RUN_ENV) $(BIN)/airflow db migrate > $(RUN_HOME)/db-migrate.log
	$(if $(RUN_SQLITE),@$(BIN)/python -m falcon_airflow.provider.embedded_database $(RUN_SQLITE))
	@echo "Airflow UI: http://127.0.0.1:$(RUN_PORT)  (login admin / admin); stop with Ctrl-C"
	@$(RUN_ENV) bash -c 'trap "trap - TERM; kill 0" INT TERM EXIT; \
	  airflow api-server --host 127.0.0.1 --port $(RUN_PORT) & \
	  for _ in $$(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/$(RUN_PORT)) 2>/dev/null && break; sleep 1; done; \
	  uvicorn --factory airflow.utils.serve_logs.log_server:create_app --host 127.0.0.1 --port $(RUN_LOG_PORT) \
	    --log-level warning --no-access-log & \
	  airflow dag-processor & \
	  airflow scheduler --skip-serve-logs & \
	  airflow triggerer --skip-serve-logs & \
	  wait'

clean:
	rm -rf $(VENV) $(S3_VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info
