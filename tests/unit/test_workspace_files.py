"""Which files a workspace reads: each file once, however it is reached, in the order found."""

from __future__ import annotations

import os
from pathlib import Path

from falcon_airflow.workspace import collect_files


def test_a_file_reached_twice_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text("<a/>")
    (tmp_path / "b.xml").write_text("<b/>")
    (tmp_path / "c.xml").symlink_to(tmp_path / "a.xml")
    found = collect_files([str(tmp_path), str(tmp_path / "b.xml")])
    assert [item.display for item in found] == [str(tmp_path / "a.xml"), str(tmp_path / "b.xml")]


def test_hard_links_are_distinct_files_and_dangling_links_are_kept_once(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text("<a/>")
    os.link(tmp_path / "a.xml", tmp_path / "b.xml")  # another name, not a symlink: read as its own file
    (tmp_path / "d.xml").symlink_to(tmp_path / "missing.xml")
    (tmp_path / "e.xml").symlink_to(tmp_path / "missing.xml")
    found = collect_files([str(tmp_path)])
    assert [Path(item.display).name for item in found] == ["a.xml", "b.xml", "d.xml"]
