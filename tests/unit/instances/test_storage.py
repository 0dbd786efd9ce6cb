"""Storage operations between jobs prove a path is an instance of the feed before touching it."""

from __future__ import annotations

from pathlib import Path

import pendulum
import pytest

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
