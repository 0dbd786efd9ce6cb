"""Import and export DagSpecs: what the job is told (never a password), how Sqoop arguments map, what is refused;
the table's OpenLineage name; JDBC URLs."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import cluster, workspace

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.specs import DatabaseSpec, TransferDagSpec
from falcon_airflow.core.databases.urls import JdbcUrlError, parse_jdbc_url
from falcon_airflow.lineage.tables import table_dataset_of

DATASOURCE = """<datasource name="db" colo="local" type="{type}" xmlns="uri:falcon:datasource:0.1">
  <interfaces>
    <interface type="readonly" endpoint="{url}">
      <credential type="password-text"><userName>reader</userName><passwordText>TopSecret</passwordText></credential>
    </interface>
    <interface type="write" endpoint="{url}">
      <credential type="password-alias"><userName>writer</userName>
        <passwordAlias><alias>falcon_datasource_writer</alias><providerPath>jceks://file/etc/db.jceks</providerPath></passwordAlias>
      </credential>
    </interface>
  </interfaces>
  <driver><clazz>{driver}</clazz><jar>/lib/driver.jar</jar></driver>
</datasource>
"""

FEED = """<feed name="orders" xmlns="uri:falcon:feed:0.1">
  <frequency>days(1)</frequency>
  <clusters>
    <cluster name="c1" type="source">
      <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
      <import>
        <source name="db" tableName="sales.orders">
          <extract type="full"><mergepolicy>snapshot</mergepolicy></extract>
          <fields><includes><field>id</field><field>total</field></includes></fields>
        </source>
        <arguments>
          <argument name="--split-by" value="id"/>
          <argument name="--num-mappers" value="4"/>
          <argument name="--where" value="day = '${{formatTime(instanceTime(), 'yyyy-MM-dd')}}'"/>{extra}
        </arguments>
      </import>
      <export>
        <target name="db" tableName="sales.orders_copy"><load type="allowinsert"/></target>
        <arguments><argument name="--update-key" value="id"/><argument name="--num-mappers" value="2"/></arguments>
      </export>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/orders/${{YEAR}}-${{MONTH}}-${{DAY}}"/></locations>
  <ACL owner="o" group="g" permission="*"/>
  <schema location="/none" provider="{provider}"/>
</feed>
"""

POSTGRES = {"type": "postgres", "url": "jdbc:postgresql://db.example:5433/shop", "driver": "org.postgresql.Driver"}


def compiled(tmp_path: Path, *, extra: str = "", provider: str = "none", **datasource: str) -> list[TransferDagSpec]:
    documents = [cluster(), DATASOURCE.format(**{**POSTGRES, **datasource}), FEED.format(extra=extra,
                                                                                        provider=provider)]
    result = compile_workspace(workspace(tmp_path, *documents))
    assert not [issue for issue in result.report.issues if issue.is_error], result.report.issues
    return [spec for spec in result.specs if isinstance(spec, TransferDagSpec)]


def argument(spec: TransferDagSpec, name: str) -> str:
    arguments = list(spec.job.arguments)
    return arguments[arguments.index(name) + 1]


def test_import_and_export_dags_of_a_feed(tmp_path: Path) -> None:
    imported, exported = compiled(tmp_path)
    assert (imported.dag_id, exported.dag_id) == ("falcon.feed.orders.import.c1", "falcon.feed.orders.export.c1")
    assert imported.schedule.frequency == "days(1)" and imported.schedule.start == "2026-01-01T00:00Z"
    assert argument(imported, "--columns") == "id,total"
    assert argument(imported, "--num-mappers") == "4" and argument(imported, "--split-by") == "id"
    assert argument(imported, "--where") == "{{ macros.falcon.expand(falcon, falcon.filter, dag_run) }}"
    assert imported.filter == "day = '${formatTime(instanceTime(), 'yyyy-MM-dd')}'"
    assert argument(imported, "--format") == "parquet"  # provider "none": Parquet
    assert argument(imported, "--location") == "file:///srv/c1/data/orders/${YEAR}-${MONTH}-${DAY}"
    assert imported.database.driver_artifact == "org.postgresql:postgresql:42.7.4"
    assert argument(exported, "--update-key") == "id" and argument(exported, "--update-mode") == "allowinsert"
    assert exported.load == "allowinsert" and exported.wait_timeout_seconds > 0


def test_no_password_reaches_the_spec(tmp_path: Path) -> None:
    imported, exported = compiled(tmp_path)
    for spec in (imported, exported):
        assert "TopSecret" not in spec.model_dump_json()
    assert imported.database.credential_type == "password-text" and argument(imported, "--user") == "reader"
    assert argument(exported, "--password-alias") == "falcon_datasource_writer"
    assert argument(exported, "--credential-provider") == "jceks://file/etc/db.jceks"


def test_storage_format_follows_the_schema_provider(tmp_path: Path) -> None:
    (imported, _) = compiled(tmp_path, provider="orc")
    assert argument(imported, "--format") == "orc"


def test_an_import_argument_the_job_cannot_honour_is_an_error(tmp_path: Path) -> None:
    documents = [cluster(), DATASOURCE.format(**POSTGRES),
                 FEED.format(extra='<argument name="--as-avrodatafile" value="true"/>', provider="none")]
    result = compile_workspace(workspace(tmp_path, *documents))
    problems = [issue.message for issue in result.report.issues if issue.rule == "FA100"]
    assert len(problems) == 1 and "--as-avrodatafile are not supported" in problems[0]
    assert "falcon.feed.orders.export.c1" in {spec.dag_id for spec in result.specs}


def test_direct_mode_is_postgres_copy_into_csv_or_parquet(tmp_path: Path) -> None:
    (imported, _) = compiled(tmp_path / "csv", extra='<argument name="--direct" value=""/>', provider="csv")
    assert "--direct" in imported.job.arguments and argument(imported, "--format") == "csv"
    (imported, _) = compiled(tmp_path / "parquet", extra='<argument name="--direct" value="true"/>')
    assert "--direct" in imported.job.arguments and argument(imported, "--format") == "parquet"
    (imported, _) = compiled(tmp_path / "off", extra='<argument name="--direct" value="false"/>', provider="csv")
    assert "--direct" not in imported.job.arguments
    for folder, provider, datasource in (("orc", "orc", POSTGRES),
                                         ("mysql", "csv", {"type": "mysql", "url": "jdbc:mysql://db:3306/shop",
                                                           "driver": "org.mariadb.jdbc.Driver"})):
        documents = [cluster(), DATASOURCE.format(**datasource),
                     FEED.format(extra='<argument name="--direct" value="true"/>', provider=provider)]
        result = compile_workspace(workspace(tmp_path / folder, *documents))
        problems = [issue.message for issue in result.report.issues if issue.rule == "FA100"]
        assert len(problems) == 1, problems
        assert "--direct streams PostgreSQL's COPY output into CSV or Parquet" in problems[0], problems


def test_an_unusable_datasource_compiles_no_transfer_and_says_why(tmp_path: Path) -> None:
    documents = [cluster(), DATASOURCE.format(type="oracle", url="jdbc:oracle:thin:@db:1521/x",
                                              driver="oracle.jdbc.OracleDriver"), FEED.format(extra="",
                                                                                              provider="none")]
    result = compile_workspace(workspace(tmp_path, *documents))
    assert {issue.rule for issue in result.report.issues if issue.is_error} >= {"FA011"}
    assert not [spec for spec in result.specs if isinstance(spec, TransferDagSpec)]


def _database(url: str, table: str, dialect: str = "postgres") -> DatabaseSpec:
    return DatabaseSpec(datasource="db", datasource_file="db.xml", interface="readonly", url=url, driver="d",
                        dialect=dialect, table=table)  # type: ignore[arg-type]


@pytest.mark.parametrize(("url", "table", "expected"), [
    ("jdbc:postgresql://db.example:5433/shop?ssl=true", "orders", ("postgres://db.example:5433",
                                                                   "shop.public.orders")),
    ("jdbc:postgresql://db.example/shop", "sales.orders", ("postgres://db.example:5432", "shop.sales.orders")),
    ("jdbc:mysql://db.example:3307/shop?useSSL=true", "orders", ("mysql://db.example:3307", "shop.orders")),
    ("jdbc:mariadb://db.example/shop", "other.orders", ("mysql://db.example:3306", "other.orders")),
    ("jdbc:sqlite:/tmp/shop.db", "orders", ("sqlite:///tmp/shop.db", "orders")),
])
def test_table_names_follow_the_openlineage_naming_spec(url: str, table: str, expected: tuple[str, str]) -> None:
    dataset = table_dataset_of(_database(url, table))
    assert (dataset.namespace, dataset.name) == expected


def test_jdbc_urls() -> None:
    assert parse_jdbc_url("jdbc:hsqldb:hsql://h:9002/db").port == 9002
    assert parse_jdbc_url("jdbc:hsqldb:file:/data/db").embedded
    assert parse_jdbc_url("jdbc:derby:/data/db;create=true").database == "/data/db"
    for bad in ("postgresql://h/db", "jdbc:", "jdbc:postgresql:db", "jdbc:postgresql://h:x/db"):
        with pytest.raises(JdbcUrlError):
            parse_jdbc_url(bad)


# -- credentials in a URL (rule FA042), and in lineage names ---------------------------------------------------------

CREDENTIAL_URLS = [
    pytest.param("jdbc:postgresql://reader:Pa55word@db.example:5433/shop", id="userinfo"),
    pytest.param("jdbc:postgresql://db.example:5433/shop?user=reader&amp;password=Pa55word", id="query"),
    pytest.param("jdbc:postgresql://db.example:5433/shop?sslpassword=Pa55word", id="ssl-key-password"),
    pytest.param("jdbc:mysql://address=(host=db.example)(port=3306)(password=Pa55word)/shop", id="mysql-address"),
]


@pytest.mark.parametrize("url", CREDENTIAL_URLS)
def test_a_url_carrying_a_password_compiles_no_transfer(tmp_path: Path, url: str) -> None:
    kind = {"type": "mysql", "driver": "org.mariadb.jdbc.Driver"} if "mysql" in url else {}
    documents = [cluster(), DATASOURCE.format(**{**POSTGRES, **kind, "url": url}),
                 FEED.format(extra="", provider="none")]
    result = compile_workspace(workspace(tmp_path, *documents))
    assert "FA042" in {issue.rule for issue in result.report.issues if issue.is_error}
    assert not [spec for spec in result.specs if isinstance(spec, TransferDagSpec)]
    assert all("Pa55word" not in issue.message for issue in result.report.issues)


def test_the_spec_names_the_datasource_owner_and_the_doc_no_user_info(tmp_path: Path) -> None:
    text = DATASOURCE.replace("</driver>", "</driver>\n  <ACL owner=\"ana\" group=\"g\" permission=\"*\"/>")
    documents = [cluster(), text.format(**{**POSTGRES, "url": "jdbc:postgresql://reader@db.example:5433/shop"}),
                 FEED.format(extra="", provider="none")]
    result = compile_workspace(workspace(tmp_path, *documents))
    specs = [spec for spec in result.specs if isinstance(spec, TransferDagSpec)]
    assert [spec.database.owner for spec in specs] == ["ana", "ana"]
    assert all("reader@" not in spec.doc_md and "db.example:5433" in spec.doc_md for spec in specs)


@pytest.mark.parametrize(("url", "expected"), [
    pytest.param("jdbc:postgresql://reader:Pa55word@db.example:5433/shop?password=Pa55word",
                 ("postgres://db.example:5433", "shop.public.orders"), id="postgres-userinfo"),
    pytest.param("jdbc:postgresql://reader@db.example/shop", ("postgres://db.example:5432", "shop.public.orders"),
                 id="postgres-user-alone"),
    pytest.param("jdbc:mariadb://reader:Pa55word@db.example/shop", ("mysql://db.example:3306", "shop.orders"),
                 id="mariadb-userinfo"),
    pytest.param("jdbc:mysql://address=(host=db.example)(port=3307)(user=reader)(password=Pa55word)/shop",
                 ("mysql://db.example:3307", "shop.orders"), id="mysql-address-form"),
])
def test_lineage_table_names_carry_no_credential(url: str, expected: tuple[str, str]) -> None:
    dataset = table_dataset_of(_database(url, "orders", "mysql" if "postgres" not in url else "postgres"))
    assert (dataset.namespace, dataset.name) == expected
