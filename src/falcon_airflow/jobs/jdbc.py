"""What the import and export jobs share: credentials, JDBC connections on the driver, SQL of each dialect.

Credentials (Falcon's three kinds), in this order:

* ``$FALCON_JDBC_CREDENTIALS``: a local file readable by its owner only, JSON ``{"user", "password"}``, written
  by the Airflow task for a ``password-text`` credential or an Airflow connection and removed after the run;
* ``--password-file PATH``: Falcon's ``password-file`` (a Hadoop file system path); its content is the password,
  one trailing line break dropped;
* ``--password-alias ALIAS --credential-provider PATH``: Falcon's ``password-alias``, read through Hadoop's
  credential provider API (``Configuration.getPassword`` with ``hadoop.security.credential.provider.path``), never
  from a Hadoop setting of that name (the clear-text fallback is off: an alias ``fs.s3a.secret.key`` would
  otherwise hand over the cluster's key).

A password file and a provider's keystore are read only under the folders the Airflow task passes in
``$FALCON_JDBC_CREDENTIAL_ROOTS`` (the deployment's ``[falcon] datasource_credential_roots``, rule FA041/FA040):
the path is qualified against the default file system and every symbolic link in it resolved (``realpath`` for a
local file, ``FileSystem.resolvePath`` otherwise), the roots likewise, and only a path below a root is read (the
resolved one). With no roots given nothing is read.

A password is never printed, never put in a report or an exception message, never on a command line: it goes from
the file or provider into ``java.util.Properties`` of the JDBC connection and Spark's JDBC options only. A URL or a
driver message quoted in an error has its credentials masked.

Standard library, pyspark, the core and the jobs package only (shipped in the zip of ``--py-files``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.databases.credentials import (
    ALIAS_RULE,
    FILE_RULE,
    ROOTS_ENV,
    ROOTS_KEY,
    CredentialPathError,
    parse_location,
    provider_locations,
    resolved_under,
)
from falcon_airflow.core.secrets import redact_text, redact_url
from falcon_airflow.jobs.frame import JobError, UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CREDENTIALS_ENV = "FALCON_JDBC_CREDENTIALS"
MAX_PASSWORD_FILE_BYTES = 64 * 1024
"""A password file is a line of text: anything larger is not one (and is not read into memory)."""
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*){0,2}$")
_COLUMN = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def add_connection_arguments(parser: Any) -> None:
    parser.add_argument("--url", required=True, help="JDBC URL of the datasource interface")
    parser.add_argument("--driver", required=True, help="JDBC driver class")
    parser.add_argument("--dialect", required=True, choices=("postgres", "mysql", "sqlite", "derby", "hsql"))
    parser.add_argument("--table", required=True)
    parser.add_argument("--user", default=None)
    parser.add_argument("--password-file", default=None)
    parser.add_argument("--password-alias", default=None)
    parser.add_argument("--credential-provider", default=None)


def add_instance_arguments(parser: Any) -> None:
    """What the import and the export are both told: the feed instance (feed, cluster, time, zone, location) and
    the database side of the transfer."""
    parser.add_argument("--feed", required=True)
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--instance", required=True)
    parser.add_argument("--timezone", default="UTC")
    parser.add_argument("--location", required=True)
    add_connection_arguments(parser)


def table_name(text: str) -> str:
    """A table name as Sqoop took it (``[catalog.][schema.]table``); anything else could inject SQL."""
    name = text.strip()
    if not _IDENTIFIER.match(name):
        raise UsageError(f"table name '{text}' is not [schema.]table of letters, digits and _")
    return name


def column_name(text: str) -> str:
    name = text.strip()
    if not _COLUMN.match(name):
        raise UsageError(f"column name '{text}' is not letters, digits and _")
    return name


def credentials(spark: SparkSession, args: Any) -> tuple[str | None, str | None]:
    """(user, password) of the run; see the module docstring for where they come from."""
    user = args.user
    secret_file = os.environ.get(CREDENTIALS_ENV)
    if secret_file:
        try:
            with open(secret_file, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as problem:
            raise JobError(f"cannot read the credentials file named by ${CREDENTIALS_ENV}: "
                           f"{type(problem).__name__}") from None
        return data.get("user") or user, data.get("password")
    if args.password_file:
        return user, _read_password_file(spark, args.password_file)
    if args.password_alias:
        if not args.credential_provider:
            raise UsageError("--password-alias needs --credential-provider")
        return user, _read_alias(spark, args.password_alias, args.credential_provider)
    return user, None


def _given_roots(what: str, rule: str) -> list[str]:
    """The credential roots the Airflow task passed; refusing when there are none."""
    text = os.environ.get(ROOTS_ENV)
    try:
        roots = json.loads(text) if text else []
    except ValueError:
        roots = []
    roots = [str(item) for item in roots if isinstance(item, str) and item.strip()] if isinstance(roots, list) else []
    if not roots:
        raise JobError(f"{what} is refused (rule {rule}): no credential roots were given in ${ROOTS_ENV} "
                       f"([falcon] {ROOTS_KEY} of the deployment), so no file may be read")
    return roots


def _resolve(session: Any, text: str, *, must_exist: bool) -> str:
    """``text`` fully qualified against the job's Hadoop configuration with every symbolic link resolved:
    ``file:///real/path`` or ``scheme://authority/path``."""
    jvm = session._jvm
    conf = session.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(text)
    fs = path.getFileSystem(conf)
    qualified = fs.makeQualified(path)
    uri = qualified.toUri()
    scheme = str(uri.getScheme() or "").lower()
    if scheme == "file":
        return "file://" + os.path.realpath(str(uri.getPath()))
    try:
        resolved = fs.resolvePath(qualified).toUri()
    except Exception:
        if must_exist:
            raise
        resolved = uri  # a root that does not exist: nothing below it resolves there either
    return f"{scheme}://{str(resolved.getAuthority() or '').lower()}{resolved.getPath()}"


def _checked_location(session: Any, text: str, what: str, rule: str) -> str:
    """The resolved location of a password file or keystore, when it lies under a given root; else refused."""
    roots = _given_roots(what, rule)
    try:
        parse_location(text)
    except CredentialPathError as problem:
        raise JobError(f"{what} is refused (rule {rule}): {problem}") from None
    try:
        resolved = _resolve(session, text, must_exist=True)
    except Exception:
        raise JobError(f"cannot read the {what}") from None
    allowed = []
    for root in roots:
        try:
            allowed.append(_resolve(session, root, must_exist=False))
        except Exception:
            continue
    if not resolved_under(resolved, allowed):
        raise JobError(f"{what} is refused (rule {rule}): {resolved} (links resolved) is not under the "
                       f"credential roots {', '.join(roots)} ([falcon] {ROOTS_KEY})")
    return resolved


def _read_password_file(spark: SparkSession, path: str) -> str:
    session: Any = spark
    what = f"password file {redact_url(path)}"
    resolved = _checked_location(session, path, what, FILE_RULE)
    if resolved.startswith("file://"):
        data = _read_local(resolved[len("file://"):], what)
    else:
        data = _read_hadoop(session, resolved, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise JobError(f"the {what} is not UTF-8 text") from None
    return text[:-1] if text.endswith("\n") else text


def _read_local(real: str, what: str) -> bytes:
    """A local file read at its resolved path, the last component not followed if it became a link since."""
    try:
        descriptor = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(descriptor, "rb") as handle:
            data = handle.read(MAX_PASSWORD_FILE_BYTES + 1)
    except OSError:
        raise JobError(f"cannot read the {what}") from None
    if len(data) > MAX_PASSWORD_FILE_BYTES:
        raise JobError(f"the {what} is larger than {MAX_PASSWORD_FILE_BYTES} bytes: not a password file")
    return data


def _read_hadoop(session: Any, resolved: str, what: str) -> bytes:
    jvm = session._jvm
    conf = session.sparkContext._jsc.hadoopConfiguration()
    hadoop_path = jvm.org.apache.hadoop.fs.Path(resolved)
    try:
        fs = hadoop_path.getFileSystem(conf)
        if int(fs.getFileStatus(hadoop_path).getLen()) > MAX_PASSWORD_FILE_BYTES:
            raise JobError(f"the {what} is larger than {MAX_PASSWORD_FILE_BYTES} bytes: not a password file")
        stream = fs.open(hadoop_path)
        try:
            data = jvm.org.apache.commons.io.IOUtils.toByteArray(stream)
        finally:
            stream.close()
    except JobError:
        raise
    except Exception:
        raise JobError(f"cannot read the {what}") from None
    return bytes(data)


def _read_alias(spark: SparkSession, alias: str, provider: str) -> str:
    session: Any = spark
    jvm = session._jvm
    try:
        keystores = provider_locations(provider)
    except CredentialPathError as problem:
        raise JobError(f"credential provider {redact_url(provider)} is refused (rule {ALIAS_RULE}): "
                       f"{problem}") from None
    for keystore in keystores:
        _checked_location(session, keystore.text, f"credential provider keystore {keystore.text}", ALIAS_RULE)
    conf = jvm.org.apache.hadoop.conf.Configuration(session.sparkContext._jsc.hadoopConfiguration())
    conf.set("hadoop.security.credential.provider.path", provider)
    # Without this, an alias no keystore holds is looked up as a Hadoop setting of that name (fs.s3a.secret.key).
    conf.setBoolean("hadoop.security.credential.clear-text-fallback", False)
    try:
        chars = conf.getPassword(alias)
    except Exception:
        raise JobError(f"cannot read alias '{alias}' from credential provider {redact_url(provider)}") \
            from None
    if chars is None:
        raise JobError(f"credential provider {redact_url(provider)} has no alias '{alias}'")
    return "".join(str(c) for c in chars)


def jdbc_url(args: Any) -> str:
    """The URL the job connects with. A MariaDB URL is given as ``jdbc:mysql:`` so that Spark applies its MySQL
    dialect (backquoted identifiers: with the generic one, ``"id"`` would be a string literal to MariaDB); MariaDB
    Connector/J accepts ``jdbc:mysql:`` URLs with ``permitMysqlScheme``."""
    url: str = args.url.strip()
    if url.startswith("jdbc:mariadb:"):
        url = "jdbc:mysql:" + url[len("jdbc:mariadb:"):]
    if url.startswith("jdbc:mysql:") and "permitMysqlScheme" not in url:
        url += ("&" if "?" in url else "?") + "permitMysqlScheme"
    return url


def spark_options(args: Any, user: str | None, password: str | None) -> dict[str, str]:
    options = {"url": jdbc_url(args), "driver": args.driver}
    if user is not None:
        options["user"] = user
    if password is not None:
        options["password"] = password
    return options


@contextmanager
def connection(spark: SparkSession, args: Any, user: str | None, password: str | None) -> Iterator[Any]:
    """A JDBC connection in the driver JVM (the driver jar is on the driver's class path)."""
    session: Any = spark
    jvm = session._jvm
    properties = jvm.java.util.Properties()
    if user is not None:
        properties.setProperty("user", user)
    if password is not None:
        properties.setProperty("password", password)
    try:
        jvm.java.lang.Class.forName(args.driver)
        handle = jvm.java.sql.DriverManager.getConnection(jdbc_url(args), properties)
    except Exception as problem:
        raise JobError(f"cannot connect to {redact_url(args.url.split('?')[0])}: {java_message(problem)}") \
            from None
    try:
        yield handle
    finally:
        handle.close()


def java_message(problem: BaseException) -> str:
    java = getattr(problem, "java_exception", None)
    text = str(java.getMessage()) if java is not None else str(problem)
    return redact_text(text.splitlines()[0]) if text else type(problem).__name__


def execute(handle: Any, statement: str) -> int:
    """Run one statement; the number of rows it changed."""
    stmt = handle.createStatement()
    try:
        return int(stmt.executeUpdate(statement))
    finally:
        stmt.close()


def query(handle: Any, statement: str) -> list[list[str | None]]:
    """Rows of a query, each value as the driver's string form (``None`` for SQL NULL)."""
    stmt = handle.createStatement()
    try:
        result = stmt.executeQuery(statement)
        width = int(result.getMetaData().getColumnCount())
        rows = []
        while result.next():
            rows.append([_string(result.getString(index)) for index in range(1, width + 1)])
        return rows
    finally:
        stmt.close()


def _string(value: Any) -> str | None:
    return None if value is None else str(value)


def columns_of(handle: Any, relation: str) -> list[tuple[str, str]]:
    """(name, SQL type name) of the columns of a table or ``(subquery) alias``, without reading rows."""
    stmt = handle.createStatement()
    try:
        result = stmt.executeQuery(f"SELECT * FROM {relation} WHERE 1 = 0")
        meta = result.getMetaData()
        return [(str(meta.getColumnLabel(i)), str(meta.getColumnTypeName(i)).lower())
                for i in range(1, int(meta.getColumnCount()) + 1)]
    finally:
        stmt.close()


def quote_list(names: Sequence[str]) -> str:
    return ", ".join(names)


def write_options(dialect: str) -> dict[str, str]:
    """Connection properties that turn Spark's batched inserts into multi-row statements."""
    if dialect == "postgres":
        return {"reWriteBatchedInserts": "true"}
    if dialect == "mysql":
        return {"rewriteBatchedStatements": "true", "useBulkStmts": "true"}
    return {}
