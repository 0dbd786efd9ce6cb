"""The Falcon store as an Airflow DAG bundle: the dag-processor and the workers see the store's definitions as files.

The store lives in Airflow's metadata database (``[falcon] store = database``), which a task process may not open
(Airflow 3 blocks the ORM there); so the bundle fetches it over HTTP from Falcon's server in the api-server
(``GET <store_url>/api/store/revision`` and ``.../snapshot?revision=N``, :mod:`falcon_airflow.server.resources.store`),
proving itself with a bundle token (:mod:`falcon_airflow.store.bundle_token`). The bundle's version is the store's
revision: every change of a definition, a schedule state or a ``-doAs`` user is a new version.

* ``refresh()`` (the dag-processor) asks for the newest revision, lays it out under ``versions/<revision>`` unless
  it is there already (:func:`falcon_airflow.dags.store_layout.lay_out`: written aside and renamed whole) and
  switches the bundle's path, ``<bundle>/current``, a symbolic link, to it with one ``os.replace``. A fetch that
  fails raises :class:`StoreFetchError` and changes nothing: Airflow keeps parsing the previous version. Old
  versions beyond ``keep_versions`` go, unless a task on this machine uses them (Airflow's own clean-up decides).
* ``initialize()`` of a versioned bundle (a worker, a callback) lays out that revision if this machine does not have
  it; without a version it refreshes, and when the server cannot be reached it keeps the revision laid out before.

Each version holds one DAG file, ``falcon_store_dags.py``, which compiles the store with the entities folder
(:mod:`falcon_airflow.dags.store_loader`). With this bundle configured, set ``[falcon] store = database`` wherever
DAG files are parsed: the dags folder's ``falcon_entities.py`` then builds nothing, so no DAG is in two bundles.

Settings: ``[falcon] store_url`` (the server; default ``[api] base_url`` + ``/falcon``), ``[falcon]
store_bundle_secret`` or ``[api_auth] jwt_secret`` (the key, shared with the api-server). Bundle kwargs:
``store_url`` (wins over the setting), ``timeout`` (seconds for one fetch, 60), ``max_bytes`` (largest answer,
512 MiB), ``keep_versions`` (10), and Airflow's ``refresh_interval``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import shutil
import ssl
import time
from pathlib import Path
from typing import Any

import httpx
from airflow.dag_processing.bundles.base import BaseDagBundle, BundleVersion, get_bundle_tracking_file

from falcon_airflow.dags.loader import _config_of
from falcon_airflow.dags.store_layout import DAG_FILE, laid_out, lay_out
from falcon_airflow.store.bundle_token import BundleKeyMissing, authorization, bundle_key
from falcon_airflow.store.database import Snapshot
from falcon_airflow.store.wire import read_snapshot_document

log = logging.getLogger(__name__)

CURRENT = "current"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
DEFAULT_KEEP_VERSIONS = 10
ERROR_BODY_BYTES = 4096
LEFTOVER_SECONDS = 3600.0
"""A hidden half-written layout older than this was left by a process that died: removed."""
_REVISION = re.compile(r"[0-9]{1,18}")


class StoreFetchError(Exception):
    """The store could not be fetched from Falcon's server; nothing was changed."""


def store_url(configured: str | None = None) -> str:
    """Where Falcon's server is: ``configured`` (the bundle's kwarg), else ``[falcon] store_url``, else ``[api]
    base_url`` + ``/falcon``, else the api-server's default port on this machine."""
    url = (configured or "").strip() or _config_of("falcon", "store_url", "").strip()
    if not url:
        base = _config_of("api", "base_url", "").strip()
        port = _config_of("api", "port", "8080").strip() or "8080"
        url = f"{base.rstrip('/') if base else f'http://localhost:{port}'}/falcon"
    return url.rstrip("/")


def client_tls() -> ssl.SSLContext | None:
    """With Airflow's ``[api] client_ssl_cert`` and ``client_ssl_key`` (an api-server with ``ssl_cert_reqs =
    required`` takes no connection without a certificate): the default verification, presenting that certificate.
    ``None``: httpx's own."""
    cert, key = (_config_of("api", name, "").strip() for name in ("client_ssl_cert", "client_ssl_key"))
    if not (cert and key):
        return None
    context = ssl.create_default_context()
    context.load_cert_chain(cert, key)
    return context


class FalconStoreBundle(BaseDagBundle):
    """The Falcon store's definitions as DAG files, one version per store revision."""

    supports_versioning = True

    def __init__(self, *, store_url: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 max_bytes: int = DEFAULT_MAX_BYTES, keep_versions: int = DEFAULT_KEEP_VERSIONS,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.version is not None and not _REVISION.fullmatch(self.version):
            raise ValueError(f"bundle {self.name}: a version of the Falcon store is a revision number, "
                             f"not {self.version!r}")
        self.store_url = store_url
        self.timeout = float(timeout)
        self.max_bytes = int(max_bytes)
        self.keep_versions = max(1, int(keep_versions))

    # -- where --------------------------------------------------------------------------------------------------

    @property
    def current_link(self) -> Path:
        return self.base_dir / CURRENT

    @property
    def path(self) -> Path:
        if self.version is not None:
            return self.versions_dir / self.version
        return self.current_link

    def get_current_version(self) -> BundleVersion | None:
        if self.version is not None:
            return BundleVersion(self.version)
        try:
            target = Path(os.readlink(self.current_link))
        except OSError:
            return None
        return BundleVersion(target.name)

    # -- Airflow's calls ----------------------------------------------------------------------------------------

    def initialize(self) -> None:
        if self.version is not None:
            try:
                _, store_id = self._newest_revision()
            except StoreFetchError as problem:
                if not (self.path / DAG_FILE).is_file():
                    raise
                store_id = None
                log.warning("bundle %s: %s; using revision %s as laid out here before", self.name, problem,
                            self.version)
            if store_id is not None and not laid_out(self.path, store_id):
                with self.lock():
                    if not laid_out(self.path, store_id):
                        lay_out(self._snapshot(int(self.version)), self.versions_dir)
        else:
            try:
                self._refresh()
            except StoreFetchError as problem:
                if not (self.current_link / DAG_FILE).is_file():
                    raise
                log.warning("bundle %s: %s; parsing revision %s, laid out before, until the store can be fetched",
                            self.name, problem, os.readlink(self.current_link))
        super().initialize()

    def refresh(self) -> None:
        if self.version is not None:
            raise ValueError(f"bundle {self.name} is revision {self.version} of the Falcon store: it is not "
                             "refreshed")
        self._refresh()

    # -- the work -----------------------------------------------------------------------------------------------

    def _refresh(self) -> None:
        with self.lock():
            newest, store_id = self._newest_revision()
            if not laid_out(self.versions_dir / str(newest), store_id):
                lay_out(self._snapshot(newest), self.versions_dir)
            self._point_to(newest)
            self._prune(newest)

    def _point_to(self, revision: int) -> None:
        """Switch ``current`` to ``versions/<revision>`` at once: a parse sees one version or the other."""
        target = Path(self.versions_dir.name) / str(revision)
        with contextlib.suppress(OSError):
            if Path(os.readlink(self.current_link)) == target:
                return
        link = self.base_dir / f".{CURRENT}.{secrets.token_hex(6)}"
        os.symlink(target, link)
        try:
            os.replace(link, self.current_link)
        except OSError:
            link.unlink(missing_ok=True)
            raise
        log.info("bundle %s: now revision %d of the Falcon store", self.name, revision)

    def _prune(self, current: int) -> None:
        """Remove old versions no task of this machine holds, keeping the newest ``keep_versions``; and what a
        process that died left half written."""
        try:
            names = list(self.versions_dir.iterdir())
        except OSError:
            return
        revisions = sorted((int(path.name) for path in names if _REVISION.fullmatch(path.name)), reverse=True)
        for revision in revisions[self.keep_versions:]:
            if revision == current or get_bundle_tracking_file(self.name, str(revision)).exists():
                continue  # in use by a task here: Airflow's stale-bundle clean-up removes it when it is done
            shutil.rmtree(self.versions_dir / str(revision), ignore_errors=True)
        for path in names:
            with contextlib.suppress(OSError):
                if path.name.startswith(".") and time.time() - path.stat().st_mtime > LEFTOVER_SECONDS:
                    shutil.rmtree(path, ignore_errors=True)

    def _newest_revision(self) -> tuple[int, str]:
        """The store's newest revision and its id."""
        document = self._get("revision")
        revision = document.get("revision") if isinstance(document, dict) else None
        if not isinstance(revision, int) or isinstance(revision, bool) or revision < 0:
            raise StoreFetchError(f"the Falcon server at {self._url('revision')} did not answer a revision")
        store_id = document.get("store", "") if isinstance(document, dict) else ""
        return revision, store_id if isinstance(store_id, str) else ""

    def _snapshot(self, revision: int) -> Snapshot:
        document = self._get("snapshot", {"revision": str(revision)})
        try:
            snapshot = read_snapshot_document(document)
        except ValueError as problem:
            raise StoreFetchError(f"the Falcon server at {self._url('snapshot')} answered a snapshot that does "
                                  f"not read: {problem}") from None
        if snapshot.revision != revision:
            raise StoreFetchError(f"asked the Falcon server at {self._url('snapshot')} for revision {revision}, "
                                  f"got {snapshot.revision}")
        return snapshot

    def _url(self, what: str) -> str:
        return f"{store_url(self.store_url)}/api/store/{what}"

    def _get(self, what: str, params: dict[str, str] | None = None) -> Any:
        """The JSON answer of ``GET <store_url>/api/store/<what>``: bounded in time (``timeout`` for the whole
        exchange) and size (``max_bytes``)."""
        url = self._url(what)
        try:
            key = bundle_key(lambda section, option: _config_of(section, option, ""))
        except BundleKeyMissing as missing:
            raise StoreFetchError(f"bundle {self.name}: {missing.message}") from None
        headers = {"Authorization": authorization(key), "Accept": "application/json"}
        deadline = time.monotonic() + self.timeout
        try:
            with self._client() as client, client.stream("GET", url, params=params, headers=headers) as response:
                limit = self.max_bytes if response.status_code == 200 else ERROR_BODY_BYTES
                body = self._read(response, url, limit, deadline)
        except httpx.HTTPError as problem:
            raise StoreFetchError(f"cannot fetch the Falcon store from {url}: {type(problem).__name__}: "
                                  f"{problem}") from None
        if response.status_code != 200:
            text = body.decode("utf-8", errors="replace").strip()
            with contextlib.suppress(ValueError, AttributeError):
                text = str(json.loads(text).get("error") or text)
            raise StoreFetchError(f"the Falcon server at {url} answered {response.status_code}: {text[:500]}")
        try:
            return json.loads(body)
        except ValueError as problem:
            raise StoreFetchError(f"the Falcon server at {url} answered no JSON: {problem}") from None

    def _client(self) -> httpx.Client:
        tls = client_tls()
        return httpx.Client(timeout=self.timeout, follow_redirects=False,
                            verify=tls if tls is not None else True)

    def _read(self, response: httpx.Response, url: str, limit: int, deadline: float) -> bytes:
        declared = response.headers.get("content-length", "")
        if response.status_code == 200 and declared.isdigit() and int(declared) > limit:
            raise StoreFetchError(f"the Falcon store at {url} is {int(declared):,} bytes, more than the bundle's "
                                  f"max_bytes ({limit:,})")
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                if response.status_code != 200:
                    break
                raise StoreFetchError(f"the Falcon store at {url} is more than the bundle's max_bytes ({limit:,})")
            if time.monotonic() > deadline:
                raise StoreFetchError(f"fetching the Falcon store from {url} took more than {self.timeout:g} s")
        return b"".join(chunks)[:limit]
