"""The JVM jars our Spark jobs need beyond pyspark's own: where they are cached and when a job needs them.

``make install`` resolves the pinned artifacts of ``deps/maven/*.pom.xml`` from Maven Central into a cache
folder, one sub-folder per group (``s3a``: hadoop-aws and the AWS SDK modules; ``minicluster``: in-process HDFS
for the sandbox; ``distcp``: the benchmark's peer). The folder is ``$FALCON_AIRFLOW_JARS`` when set, else
``~/.cache/falcon-airflow/jars``. A deployment that brings its own jars (in ``$SPARK_HOME/jars``, or through
``spark.jars``/``spark.jars.packages``/``--jars``/``--packages``) gets nothing added.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

JARS_ENV = "FALCON_AIRFLOW_JARS"
S3A_GROUP = "s3a"
_S3A_MARKER = "hadoop-aws"


class JarCacheError(RuntimeError):
    """A job needs jars that the cache does not have."""


def jar_cache() -> Path:
    configured = os.environ.get(JARS_ENV, "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "falcon-airflow" / "jars"


def jar_group(group: str, cache: Path | None = None) -> list[Path]:
    """The jars of one group, sorted; a clear error when the group was never resolved."""
    folder = (cache or jar_cache()) / group
    jars = sorted(folder.glob("*.jar")) if folder.is_dir() else []
    if not jars:
        raise JarCacheError(
            f"the '{group}' jars are not in {folder}: run `make jars` (Maven resolves them from deps/maven/"
            f"{group}.pom.xml), copy a filled cache there, or set {JARS_ENV} to a folder that has them")
    return jars


def uses_s3a(conf: Mapping[str, str], arguments: Iterable[str]) -> bool:
    """Whether a job touches ``s3a://`` storage: a path among its arguments or an S3A setting in its conf."""
    if any(key.startswith("spark.hadoop.fs.s3a.") for key in conf):
        return True
    return any("s3a://" in str(value) for value in [*conf.values(), *arguments])


def brings_s3a(conf: Mapping[str, str], jars: str | None, packages: str | None, spark_home: str | None) -> bool:
    """Whether the deployment already provides hadoop-aws (its image, its spark.jars or packages)."""
    given = ",".join(filter(None, [jars, packages, conf.get("spark.jars"), conf.get("spark.jars.packages")]))
    if _S3A_MARKER in given:
        return True
    return bool(spark_home) and any(Path(str(spark_home), "jars").glob(f"{_S3A_MARKER}-*.jar"))


def s3a_jars_for(conf: Mapping[str, str], arguments: Iterable[str], *, jars: str | None, packages: str | None,
                 spark_home: str | None) -> list[Path]:
    """The cached s3a jars a spark-submit must add: none unless the job needs them and nothing else brings them."""
    if not uses_s3a(conf, arguments) or brings_s3a(conf, jars, packages, spark_home):
        return []
    return jar_group(S3A_GROUP)
