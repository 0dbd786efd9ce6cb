"""Secrets are told apart and masked wherever they could surface: setting names, JDBC URLs of every vendor's form,
free text."""

from __future__ import annotations

import pytest

from falcon_airflow.core.secrets import MASK, is_secret_name, redact_text, redact_url, url_secrets

SECRET_SETTINGS = [
    "spark.hadoop.fs.s3a.secret.key",
    "spark.hadoop.fs.s3a.access.key",
    "spark.hadoop.fs.s3a.session.token",
    "spark.hadoop.fs.s3a.bucket.logs.secret.key",
    "spark.hadoop.fs.azure.account.key.shop.blob.core.windows.net",
    "spark.hadoop.fs.gs.auth.service.account.private.key",
    "spark.hadoop.fs.s3.awsSecretAccessKey",
    "javax.net.ssl.trustStorePassword",
    "spark.ssl.keyPassword",
    "spark.authenticate.secret",
    "hive.metastore.client.credentials",
    "db.password",
]
PLAIN_SETTINGS = [
    "spark.hadoop.fs.s3a.endpoint",
    "spark.sql.shuffle.partitions",
    "spark.io.encryption.keySizeBits",
    "spark.ssl.keyStore",
    "hadoop.security.credential.provider.path",
    "spark.hadoop.fs.s3a.aws.credentials.provider",
    "spark.yarn.queue",
    "spark.sasl.encryption.enabled",
]


@pytest.mark.parametrize("name", SECRET_SETTINGS)
def test_secret_settings_are_recognised(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", PLAIN_SETTINGS)
def test_plain_settings_are_not_secrets(name: str) -> None:
    assert not is_secret_name(name)


# (URL, the secrets in it): every vendor form of credentials in a JDBC URL.
CREDENTIAL_URLS = [
    pytest.param("jdbc:postgresql://alice:Pa55word@db:5432/shop", ["alice", "Pa55word"], id="postgres-userinfo"),
    pytest.param("jdbc:postgresql://db:5432/shop?user=alice&password=Pa55word", ["alice", "Pa55word"],
                 id="postgres-query"),
    pytest.param("jdbc:postgresql://db/shop?sslpassword=KeyPass", ["KeyPass"], id="postgres-sslpassword"),
    pytest.param("jdbc:mysql://alice:P@ss@db:3306/shop", ["alice", "P@ss"], id="mysql-userinfo-with-at"),
    pytest.param("jdbc:mysql://address=(host=db)(port=3306)(user=alice)(password=Pa55word)/shop",
                 ["alice", "Pa55word"], id="mysql-address-form"),
    pytest.param("jdbc:mariadb://db:3306/shop?user=alice&password=Pa55word&useSSL=true", ["alice", "Pa55word"],
                 id="mariadb-query"),
    pytest.param("jdbc:sqlserver://db:1433;databaseName=shop;user=alice;password=Pa55word", ["alice", "Pa55word"],
                 id="sqlserver"),
    pytest.param("jdbc:oracle:thin:alice/Pa55word@//db:1521/shop", ["alice", "Pa55word"], id="oracle-service"),
    pytest.param("jdbc:oracle:thin:alice/Pa55word@db:1521:shop", ["alice", "Pa55word"], id="oracle-sid"),
    pytest.param("jdbc:db2://db:50000/SHOP:user=alice;password=Pa55word;", ["alice", "Pa55word"], id="db2"),
    pytest.param("jdbc:teradata://db/DATABASE=shop,USER=alice,PASSWORD=Pa55word", ["alice", "Pa55word"],
                 id="teradata"),
]


@pytest.mark.parametrize(("url", "secrets"), CREDENTIAL_URLS)
def test_redacted_urls_keep_no_credential(url: str, secrets: list[str]) -> None:
    redacted = redact_url(url)
    assert MASK in redacted
    for secret in secrets:
        assert secret not in redacted, redacted
    assert url_secrets(url), "a URL carrying a password is recognised as one"
    message = redact_text(f"cannot connect to {url}: refused")
    assert message.startswith("cannot connect to jdbc:") and all(secret not in message for secret in secrets)


@pytest.mark.parametrize("url", ["jdbc:postgresql://db:5432/shop", "jdbc:sqlite:/tmp/shop.db",
                                 "jdbc:hsqldb:file:/tmp/shop;shutdown=true", "jdbc:postgresql://alice@db/shop",
                                 "jdbc:mysql://db/shop?user=alice&useSSL=true"])
def test_urls_without_a_password_carry_no_secret(url: str) -> None:
    assert url_secrets(url) == []


@pytest.mark.parametrize("url", ["jdbc:postgresql://db:5432/shop", "jdbc:sqlite:/tmp/shop.db",
                                 "jdbc:hsqldb:file:/tmp/shop;shutdown=true"])
def test_urls_without_credentials_are_left_as_they_are(url: str) -> None:
    assert redact_url(url) == url
