"""``s3a://`` (and ``s3://``, ``s3n://``) on the Airflow side, through s3fs: input sensors, output flags and
clean-up, late-data sizes, instance listings.

Where the store is and how to talk to it comes from the cluster entity, in Hadoop's S3A names, so one cluster
entity configures the Spark jobs and the Airflow side alike (:func:`client_settings` picks them, the feed's
binding carries them into the DAG):

=====================================  =============================================================
cluster property                       s3fs / botocore
=====================================  =============================================================
``fs.s3a.endpoint``                    ``endpoint_url`` (``https://`` unless ``fs.s3a.connection.ssl.enabled`` is
                                       ``false``, as S3A does for an endpoint without a scheme)
``fs.s3a.path.style.access``           ``addressing_style = "path"``
``fs.s3a.endpoint.region``             ``region_name``
``fs.s3a.aws.credentials.provider``    ``anon`` when it names S3A's anonymous provider
``fs.s3a.bucket.<bucket>.<option>``    the same option, for that bucket only (S3A's per-bucket settings)
=====================================  =============================================================

Credentials never come from entity text: the Airflow side reads S3 as the Airflow deployment itself, through the
standard AWS chain of its workers and triggerer (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``,
``AWS_PROFILE`` and ``~/.aws``, a pod or instance role). The key settings a cluster may carry for its Spark jobs
(``fs.s3a.access.key`` ...) are left out of what reaches a DAG.

No Airflow import; s3fs is imported when an S3 location is first reached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

S3_SCHEMES = frozenset({"s3a", "s3", "s3n"})
_PREFIX = "fs.s3a."
# The S3A options the Airflow side applies; anything else (keys, tuning of the S3A connector) is the jobs' alone.
CLIENT_OPTIONS = ("endpoint", "path.style.access", "endpoint.region", "connection.ssl.enabled",
                  "aws.credentials.provider")
ANONYMOUS_PROVIDER = "AnonymousAWSCredentialsProvider"


def client_settings(properties: Mapping[str, str]) -> dict[str, str]:
    """The S3A settings of a cluster's properties that reach the Airflow side: :data:`CLIENT_OPTIONS`, global or
    per bucket; never a key, secret or token."""
    chosen: dict[str, str] = {}
    for name, value in properties.items():
        key = name.strip()
        if not key.startswith(_PREFIX):
            continue
        option = key[len(_PREFIX):]
        if option.startswith("bucket."):
            _, _, rest = option.partition(".")
            bucket, separator, option = rest.partition(".")
            if not bucket or not separator:
                continue
        if option in CLIENT_OPTIONS:
            chosen[key] = value.strip()
    return dict(sorted(chosen.items()))


def _option(settings: Mapping[str, str], bucket: str, option: str) -> str | None:
    """An S3A option for ``bucket``: its per-bucket value, else the global one (S3A's precedence)."""
    value = settings.get(f"{_PREFIX}bucket.{bucket}.{option}")
    if value is None:
        value = settings.get(f"{_PREFIX}{option}")
    return value.strip() if value is not None and value.strip() else None


def s3fs_options(settings: Mapping[str, str], bucket: str) -> dict[str, Any]:
    """The keyword arguments of ``s3fs.S3FileSystem`` for ``bucket`` under a cluster's S3A ``settings``."""
    options: dict[str, Any] = {}
    endpoint = _option(settings, bucket, "endpoint")
    if endpoint is not None:
        if "://" not in endpoint:
            secure = (_option(settings, bucket, "connection.ssl.enabled") or "true").lower() != "false"
            endpoint = f"{'https' if secure else 'http'}://{endpoint}"
        options["endpoint_url"] = endpoint
    region = _option(settings, bucket, "endpoint.region")
    if region is not None:
        options["client_kwargs"] = {"region_name": region}
    if (_option(settings, bucket, "path.style.access") or "").lower() == "true":
        options["config_kwargs"] = {"s3": {"addressing_style": "path"}}
    if ANONYMOUS_PROVIDER in (_option(settings, bucket, "aws.credentials.provider") or ""):
        options["anon"] = True
    return options


def s3_filesystem(settings: Mapping[str, str] | None, bucket: str) -> Any:
    """An s3fs file system for ``bucket``. Its listings are never cached: a sensor asks again and again whether an
    object arrived, and a cached listing would say no forever."""
    from s3fs import S3FileSystem  # type: ignore[import-untyped]  # s3fs ships no type information

    return S3FileSystem(use_listings_cache=False, **s3fs_options(settings or {}, bucket))
