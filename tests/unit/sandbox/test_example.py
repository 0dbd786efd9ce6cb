"""A local deployment's example data lives under its own home, and no deployment starts on another one's storage."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from falcon_airflow.sandbox.example import (
    EXAMPLE_STORAGE,
    OWNER_FILE,
    StorageTaken,
    claim,
    copy_example,
    main,
    storage_roots,
)
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[3]


def _mentions(folder: Path, text: str) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()
            and text in path.read_text(encoding="utf-8", errors="replace")]


def test_a_copy_of_the_example_writes_under_its_storage(tmp_path: Path) -> None:
    copy_example(REPOSITORY / "entities", tmp_path / "entities", tmp_path / "storage")
    assert not _mentions(tmp_path / "entities", EXAMPLE_STORAGE)
    roots = storage_roots(Workspace.load([str(tmp_path / "entities")]))
    assert roots and all(root.is_relative_to(tmp_path / "storage") for root in roots)
    datasource = (tmp_path / "entities" / "datasources" / "shop-db.xml").read_text()
    assert f"jdbc:sqlite:{tmp_path / 'storage'}/shop.db" in datasource
    assert not (tmp_path / ".entities.partial").exists()


def test_leaving_out_what_is_not_in_the_example_copies_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        copy_example(REPOSITORY / "entities", tmp_path / "entities", tmp_path / "storage", ["feeds/nothing.xml"])
    assert not (tmp_path / "entities").exists()


@pytest.mark.parametrize("homes", [("a", "b"), ("a/home", "b/home"), ("same/../a", "b")])
def test_two_homes_on_the_same_storage_the_second_is_refused(tmp_path: Path, homes: tuple[str, str]) -> None:
    first, second = (tmp_path / home for home in homes)
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    roots = [tmp_path / "storage" / "primary", tmp_path / "storage" / "backup"]
    claim(roots, first)
    with pytest.raises(StorageTaken, match="storage of the deployment whose Airflow home is"):
        claim(roots, second)
    assert all((root / OWNER_FILE).read_text().strip() == str(first.resolve()) for root in roots)
    claim(roots, first)  # the owner itself starts again


def test_one_claimed_root_of_several_refuses_them_all(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    claim([tmp_path / "backup"], tmp_path / "a")
    with pytest.raises(StorageTaken):
        claim([tmp_path / "primary", tmp_path / "backup"], tmp_path / "b")
    assert not (tmp_path / "primary" / OWNER_FILE).exists()


def test_the_claim_of_a_home_that_is_gone_is_taken_over(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    claim([tmp_path / "storage"], gone)
    gone.rmdir()
    claim([tmp_path / "storage"], tmp_path)
    assert (tmp_path / "storage" / OWNER_FILE).read_text().strip() == str(tmp_path.resolve())


def test_another_home_runs_its_own_example_and_the_first_keeps_its_storage(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    shared = tmp_path / "shared-entities"
    copy_example(REPOSITORY / "entities", shared, tmp_path / "machine-storage")
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    assert main(["--home", str(first), "--entities", str(shared)]) == 0
    # the same entities under another home: refused, naming the owner
    assert main(["--home", str(second), "--entities", str(shared)]) == 1
    assert f"Airflow home is {first.resolve()}" in capsys.readouterr().err
    # another home with the example: its own copy, its own storage
    assert main(["--home", str(second), "--entities", str(second / "entities"),
                 "--example", str(REPOSITORY / "entities")]) == 0
    roots = storage_roots(Workspace.load([str(second / "entities")]))
    assert roots and all(root.is_relative_to(second / "storage") for root in roots)
    assert all((root / OWNER_FILE).read_text().strip() == str(second.resolve()) for root in roots)


def test_an_entities_folder_outside_the_home_is_never_made(tmp_path: Path) -> None:
    assert main(["--home", str(tmp_path / "home"), "--entities", str(tmp_path / "elsewhere"),
                 "--example", str(REPOSITORY / "entities")]) == 2
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize(("home", "entities"), [
    (None, "{repo}/entities"),
    ("{repo}/airflow-home", "{repo}/entities"),
    ("{tmp}/other-home", "{tmp}/other-home/entities"),
])
def test_make_run_gives_another_home_its_own_entities(tmp_path: Path, home: str | None, entities: str) -> None:
    argv = ["make", "--no-print-directory", "-n", "-o", ".venv/.installed", "-o", "install", "run"]
    if home is not None:
        argv.append(f"RUN_HOME={home.format(repo=REPOSITORY, tmp=tmp_path)}")
    printed = subprocess.run(argv, cwd=REPOSITORY, capture_output=True, text=True, check=True,
                             env={"PATH": "/usr/bin:/bin"}).stdout
    step = next(line for line in printed.splitlines() if "falcon_airflow.sandbox.example" in line)
    assert f"--entities {entities.format(repo=REPOSITORY, tmp=tmp_path)} " in step
