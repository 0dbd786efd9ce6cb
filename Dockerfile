# The falcon-airflow image: the official Apache Airflow 3.3.2 image (Python 3.11, Debian bookworm) with a Java 17
# runtime for Spark, the falcon-airflow package with PySpark pinned by constraints.txt, and the one DAG file.
# The Helm chart in helm/ runs every Airflow component and the Spark executors on it.
#
#   docker build --tag falcon-airflow:0.1.0 .
#
# Entity XML is not baked in: FALCON_ENTITIES_DIR=/opt/airflow/entities is where the chart mounts the entities
# ConfigMap (or set FALCON_ENTITIES_DIR to a git-sync checkout).
FROM apache/airflow:3.3.2-python3.11

LABEL org.opencontainers.image.title="falcon-airflow" \
      org.opencontainers.image.description="Apache Falcon entities run as Airflow DAGs on Apache Spark" \
      org.opencontainers.image.licenses="Apache-2.0"

# Spark needs a Java runtime: OpenJDK 17 from Debian, installed as root. JAVA_HOME goes through a link without the
# architecture in its name (java-17-openjdk-amd64 or -arm64). Slim Debian images lack the man folders that the
# JRE's alternatives point into.
USER root
RUN mkdir -p /usr/share/man/man1 \
    && apt-get update \
    && apt-get install -y --no-install-recommends openjdk-17-jre-headless \
    && ln -s "$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")" /usr/lib/jvm/java-17 \
    && apt-get autoremove -yqq --purge \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o airflow -g 0 /opt/falcon-airflow
ENV JAVA_HOME=/usr/lib/jvm/java-17

# The JVM jars Spark jobs need beyond pyspark's, as `make install` resolves them (deps/maven, checksums enforced):
# s3a:// (hadoop-aws and the AWS SDK modules it loads) and the JDBC drivers of feed imports and exports. Maven is
# installed for this step only. A deployment that brings its own jars points FALCON_AIRFLOW_JARS elsewhere.
COPY deps/maven/s3a.pom.xml deps/maven/jdbc.pom.xml /tmp/falcon-jars/
RUN apt-get update \
    && apt-get install -y --no-install-recommends maven \
    && for group in s3a jdbc; do \
         mvn --batch-mode --quiet -Dstyle.color=never --strict-checksums -f "/tmp/falcon-jars/${group}.pom.xml" \
           dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="/opt/falcon-airflow/jars/${group}" \
         && touch "/opt/falcon-airflow/jars/${group}/.resolved"; \
       done \
    && apt-get purge -y --auto-remove maven \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /root/.m2 /tmp/falcon-jars \
    && chown -R airflow:0 /opt/falcon-airflow/jars
ENV FALCON_AIRFLOW_JARS=/opt/falcon-airflow/jars

# The package, as the airflow user (the image installs Python packages for that user), with the versions of
# constraints.txt: apache-airflow stays at the image's 3.3.2 and pyspark at the tested version.
USER airflow
COPY --chown=airflow:0 constraints.txt pyproject.toml README.md /opt/falcon-airflow/
COPY --chown=airflow:0 src/ /opt/falcon-airflow/src/
WORKDIR /opt/falcon-airflow
RUN pip install --no-cache-dir --constraint constraints.txt '.[airflow,spark]' \
    && java -version \
    && python -c "import falcon_airflow.dags.loader, falcon_airflow.provider, pyspark" \
    && falcon-airflow --help > /dev/null

# The DAG file in the image's dags folder ([core] dags_folder = /opt/airflow/dags), and the entities mount point.
COPY --chown=airflow:0 dags/ /opt/airflow/dags/
RUN mkdir -p /opt/airflow/entities
ENV FALCON_ENTITIES_DIR=/opt/airflow/entities

WORKDIR /opt/airflow
