"""Storage operations between jobs prove a path is an instance of the feed before touching it."""

from __future__ import annotations

from pathlib import Path

import pendulum
import pytest

from falcon_airflow.core.paths import Template
from falcon_airflow.instances.storage import StorageError, clear_instance, exists, total_bytes, write_flag

UTC = pendulum.UTC
MOMENT = pendulum.datetime(2026, 3, 1, 5, tz="UTC")


def test_clear_instance_removes_exactly_the_instance(tmp_path: Path) -> None:
    template = f"file://{tmp_path}/out/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"
    instance = tmp_path / "out/2026/03/01/05"
    sibling = tmp_path / "out/2026/03/01/06"
    for folder in (instance, sibling):
        folder.mkdir(parents=True)
        (folder / "part-0").write_text("x")
    assert clear_instance(f"file://{instance}", template, MOMENT, UTC)
    assert not instance.exists() and sibling.exists()
    assert not clear_instance(f"file://{instance}", template, MOMENT, UTC)  # idempotent


@pytest.mark.parametrize(("location", "template", "message"), [
    ("file:///data/out", "file:///data/out", "no date variable"),
    ("file:///data/out/2026/03/01/06", "file:///data/out/${YEAR}/${MONTH}/${DAY}/${HOUR}", "not the instance path"),
    ("file:///data/out", "file:///data/out/${YEAR}/${MONTH}/${DAY}/${HOUR}", "not the instance path"),
    ("file:///2026/03", "file:///${YEAR}/${MONTH}", "the file system's root"),
    ("/2026", "/${YEAR}", "the file system's root"),
])
def test_clear_instance_refuses_what_is_not_the_instance(location: str, template: str, message: str) -> None:
    with pytest.raises(StorageError, match=message):
        clear_instance(location, template, MOMENT, UTC)


def test_clear_instance_refuses_a_symlinked_instance(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "precious").write_text("keep")
    link = tmp_path / "out/2026/03/01/05"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    with pytest.raises(StorageError, match="symbolic link"):
        clear_instance(f"file://{link}", f"file://{tmp_path}/out/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}", MOMENT, UTC)
    assert (target / "precious").exists()


def test_flags_sizes_and_existence(tmp_path: Path) -> None:
    folder = tmp_path / "in/05"
    with pytest.raises(StorageError, match="does not exist"):
        write_flag(f"file://{folder}", "_SUCCESS")
    folder.mkdir(parents=True)
    (folder / "a").write_text("12345")
    (folder / "sub").mkdir()
    (folder / "sub" / "b").write_text("678")
    assert write_flag(f"file://{folder}", "_SUCCESS") == f"file://{folder}/_SUCCESS"
    assert exists(f"file://{folder}/_SUCCESS") and exists(str(folder)) and not exists(f"file://{folder}/x")
    assert total_bytes(f"file://{tmp_path}/in/*") == 8
    with pytest.raises(StorageError, match="no file-system driver"):
        exists("nosuchscheme://host/path")


def test_a_table_feed_binding_is_available_when_its_partition_is_in_the_metastore() -> None:
    from falcon_airflow.instances.bindings import FeedBinding

    binding = FeedBinding(feed="t", cluster="c", frequency="hours(1)", timezone="UTC", start="2026-01-01T00:00Z",
                          end="2099-01-01T00:00Z", location="catalog:db:events#ds=${YEAR}${MONTH}${DAY};hr=${HOUR}",
                          storage="table", availability_flag="_SUCCESS", metastore="thrift://meta:9083")
    assert binding.marker(MOMENT) == "thrift://meta:9083/db/events/ds=20260301/hr=05"  # no flag file in a table
    assert "metastore" not in binding.model_copy(update={"metastore": None}).model_dump()  # specs stay as they were


def test_a_table_partition_without_a_metastore_cannot_be_checked() -> None:
    with pytest.raises(StorageError, match="no registry interface"):
        exists("catalog:db:events#ds=20260301")


def test_an_unreachable_metastore_is_an_error_not_a_missing_partition() -> None:
    """A StorageError: the feed trigger turns it into an error event with this message, as for a file system."""
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StorageError, match=r"metastore thrift://127\.0\.0\.1:\d+ (cannot be reached|did not answer)"):
        exists(f"thrift://127.0.0.1:{port}/db/events/ds=20260301")


# -- clearing never leaves the feed: paths are read as storage reads them, every component below the base checked --

OUT = "out/${YEAR}/${MONTH}/${DAY}/${HOUR}"


def _victim(tmp_path: Path) -> Path:
    """Another feed's instance, outside the feed being cleared."""
    victim = tmp_path / "victim/2026/03/01/05"
    victim.mkdir(parents=True)
    (victim / "precious").write_text("keep")
    return victim


@pytest.mark.parametrize("escape", [
    "%2e%2e/victim",  # '..' once decoded
    "%2E%2E/victim",  # upper-case escapes
    ".%2e/victim",  # half encoded
    "%2e%2e%2fvictim",  # an encoded '/' too
    "%252e%252e/victim",  # encoded twice: another decoding gives '..'
    "sub%5c..%5c..%5cvictim",  # '\' taken for a separator
    "sub\\..\\..\\victim",
])
def test_clear_instance_refuses_a_location_that_decodes_outside_the_feed(tmp_path: Path, escape: str) -> None:
    victim = _victim(tmp_path)
    template = f"file://{tmp_path}/feed/{escape}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"
    location = template.replace("${YEAR}", "2026").replace("${MONTH}", "03").replace("${DAY}", "01") \
        .replace("${HOUR}", "05")
    with pytest.raises(StorageError, match="refusing to touch"):
        clear_instance(location, template, MOMENT, UTC)
    assert (victim / "precious").read_text() == "keep"


@pytest.mark.parametrize("spelling", ["feed//out", "feed/./out", "feed/%2e/out", "fe%65d/out"])
def test_clear_instance_clears_the_instance_whatever_harmless_spelling_names_it(tmp_path: Path,
                                                                                 spelling: str) -> None:
    instance = tmp_path / "feed/out/2026/03/01/05"
    sibling = tmp_path / "feed/out/2026/03/01/06"
    for folder in (instance, sibling):
        folder.mkdir(parents=True)
        (folder / "part-0").write_text("x")
    template = f"file://{tmp_path}/{spelling}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"
    location = f"file://{tmp_path}/{spelling}/2026/03/01/05"
    assert clear_instance(location, template, MOMENT, UTC)
    assert not instance.exists() and (sibling / "part-0").exists()


@pytest.mark.parametrize("linked", ["2026", "2026/03", "2026/03/01", "2026/03/01/05"])
def test_clear_instance_refuses_a_symlink_at_any_depth_below_the_feed(tmp_path: Path, linked: str) -> None:
    """A year, month, day or instance folder that is a link to another feed's folder: nothing is deleted."""
    victim = tmp_path / "other-feed/2026/03/01/05"
    victim.mkdir(parents=True)
    (victim / "precious").write_text("keep")
    link = tmp_path / "feed" / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(tmp_path / "other-feed" / linked)
    template = f"file://{tmp_path}/feed/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"
    with pytest.raises(StorageError, match=f"{tmp_path}/feed/{linked} is a symbolic link"):
        clear_instance(f"file://{tmp_path}/feed/2026/03/01/05", template, MOMENT, UTC)
    assert (victim / "precious").read_text() == "keep"


class _RemoteTree:
    """A remote file system as fsspec lists it: ``type`` per entry, ``symlink`` as WebHDFS's LISTSTATUS says."""

    def __init__(self, entries: dict[str, str]) -> None:
        self.entries = entries
        self.removed: list[str] = []

    def info(self, path: str) -> dict[str, str]:
        if path not in self.entries:
            raise FileNotFoundError(path)
        return {"name": path, "type": self.entries[path]}

    def ls(self, path: str, detail: bool = False) -> list[dict[str, str]]:
        if path not in self.entries:
            raise FileNotFoundError(path)
        children = [name for name in self.entries if name.rsplit("/", 1)[0] == path.rstrip("/") and name != path]
        return [{"name": name, "type": self.entries[name]} for name in sorted(children)]

    def rm(self, path: str, recursive: bool = False) -> None:
        self.removed.append(path)


@pytest.mark.parametrize("linked", ["/feed/2026", "/feed/2026/03", "/feed/2026/03/01", "/feed/2026/03/01/05"])
def test_clear_instance_on_hdfs_refuses_a_symlink_at_any_depth(monkeypatch: pytest.MonkeyPatch, linked: str) -> None:
    from falcon_airflow.instances import storage

    folders = ["/feed", "/feed/2026", "/feed/2026/03", "/feed/2026/03/01", "/feed/2026/03/01/05"]
    tree = _RemoteTree({folder: "symlink" if folder == linked else "directory" for folder in folders})
    monkeypatch.setattr(storage, "_webhdfs", lambda authority: tree)
    template = "hdfs://nn:8020/feed/${YEAR}/${MONTH}/${DAY}/${HOUR}"
    with pytest.raises(StorageError, match=f"hdfs://nn:8020{linked} is a symbolic link"):
        clear_instance("hdfs://nn:8020/feed/2026/03/01/05", template, MOMENT, UTC)
    assert tree.removed == []


def test_clear_instance_on_hdfs_removes_the_normalised_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.instances import storage

    folders = ["/feed", "/feed/2026", "/feed/2026/03", "/feed/2026/03/01", "/feed/2026/03/01/05"]
    tree = _RemoteTree(dict.fromkeys(folders, "directory"))
    monkeypatch.setattr(storage, "_webhdfs", lambda authority: tree)
    template = "hdfs://nn:8020//feed/./${YEAR}/${MONTH}/${DAY}/${HOUR}"
    assert clear_instance("hdfs://nn:8020//feed/./2026/03/01/05", template, MOMENT, UTC)
    assert tree.removed == ["/feed/2026/03/01/05"]
    plain = "hdfs://nn:8020/feed/${YEAR}/${MONTH}/${DAY}/${HOUR}"
    assert not clear_instance("hdfs://nn:8020/feed/2026/03/01/06", plain, MOMENT.add(hours=1), UTC)  # not there
    assert tree.removed == ["/feed/2026/03/01/05"]


@pytest.mark.parametrize("rest", ["?{MONTH}/${DAY}/${HOUR}", "#{MONTH}/${DAY}/${HOUR}", "x?y/${MONTH}/${DAY}/${HOUR}",
                                  "${MONTH}/${DAY}/${HOUR}?"])
def test_clear_instance_refuses_a_location_that_storage_reads_cut_short(tmp_path: Path, rest: str) -> None:
    """A '?' or '#' ends the path a URI names: the year folder, all of it, is what would go."""
    year = tmp_path / "feed/2026"
    (year / "02/28/23").mkdir(parents=True)
    (year / "02/28/23/part-0").write_text("keep")
    template = f"file://{tmp_path}/feed/${{YEAR}}/{rest}"
    location = Template(template).resolve(MOMENT, UTC)
    with pytest.raises(StorageError, match=r"'\?' or '#'"):
        clear_instance(location, template, MOMENT, UTC)
    assert (year / "02/28/23/part-0").read_text() == "keep"
