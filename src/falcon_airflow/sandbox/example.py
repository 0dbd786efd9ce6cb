"""Where the example pipeline of a local deployment (``make run``) keeps its data: under that deployment's own home.

The example entities name their storage once, in the clusters' endpoints and the datasource's file:
``/tmp/falcon-airflow``. The deployment with the repository's default home (``airflow-home/``) runs them as they
are. A deployment with another home (``make run RUN_HOME=...``) gets its own copy of the example in
``<home>/entities``, with that root moved to ``<home>/storage``, so two deployments on one machine never share, clear
or evict each other's instances.

Either way the deployment claims the local storage roots its clusters name (a ``.falcon-airflow-home`` file in
each, naming the Airflow home), and a second deployment whose entities name a root that another existing home has
claimed is refused before it starts::

    python -m falcon_airflow.sandbox.example --home HOME --entities ENTITIES [--example EXAMPLE]

With ``--example``, a missing ``ENTITIES`` inside ``HOME`` is made from ``EXAMPLE`` first.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from falcon_airflow.entities import InterfaceType
from falcon_airflow.workspace import Workspace

EXAMPLE_STORAGE = "/tmp/falcon-airflow"
"""The storage root the committed example names."""
OWNER_FILE = ".falcon-airflow-home"
"""Written in each local storage root a deployment's clusters name: the Airflow home of the deployment using it."""


class StorageTaken(Exception):
    """A local storage root belongs to another deployment that still exists."""


def copy_example(example: Path, target: Path, storage: Path, leave_out: Sequence[str] = ()) -> None:
    """The example entities of ``example`` but ``leave_out`` (paths relative to it) in ``target``, with every
    mention of the example's storage root (cluster endpoints, the datasource's file, the example's jobs) moved to
    ``storage``. Made beside ``target`` and renamed into place, so a failure leaves no half copy."""
    staged = target.with_name(f".{target.name}.partial")
    shutil.rmtree(staged, ignore_errors=True)
    shutil.copytree(example, staged)
    for relative in leave_out:
        left = staged / relative
        if not left.exists():
            raise FileNotFoundError(f"{relative} is not in the example {example}")
        shutil.rmtree(left) if left.is_dir() else left.unlink()
    for path in [*staged.rglob("*.xml"), *staged.rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        if EXAMPLE_STORAGE in text:
            path.write_text(text.replace(f"{EXAMPLE_STORAGE}/", f"{storage}/"), encoding="utf-8")
    staged.rename(target)


def storage_roots(workspace: Workspace) -> list[Path]:
    """The local (``file://``) storage roots of the workspace's clusters: their readonly and write endpoints."""
    roots = []
    for cluster in workspace.clusters.values():
        for kind in (InterfaceType.READONLY, InterfaceType.WRITE):
            interface = cluster.interface(kind)
            if interface is None:
                continue
            parts = urlsplit(interface.endpoint.strip())
            if parts.scheme == "file" and parts.path:
                roots.append(Path(parts.path))
    return list(dict.fromkeys(roots))


def claim(roots: Sequence[Path], home: Path) -> list[Path]:
    """Mark every root as used by the deployment at ``home``; refuse (:class:`StorageTaken`, nothing written)
    when one is claimed by another home that still exists. A claim by a home that is gone is taken over."""
    home = home.resolve()
    for root in roots:
        marker = root / OWNER_FILE
        try:
            owner = Path(marker.read_text(encoding="utf-8").strip())
        except OSError:
            continue
        if owner != home and owner.is_dir():
            raise StorageTaken(
                f"{root} is the storage of the deployment whose Airflow home is {owner} ({marker} says so): this "
                f"deployment ({home}) would read, clear and evict its instances. Start it with its own home "
                "(make run RUN_HOME=<folder>: its example then writes under that home) or entities whose clusters "
                f"name other storage; if {owner} is no longer used, delete {marker}.")
    claimed = []
    for root in roots:
        root.mkdir(parents=True, exist_ok=True)
        (root / OWNER_FILE).write_text(f"{home}\n", encoding="utf-8")
        claimed.append(root)
    return claimed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m falcon_airflow.sandbox.example", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--home", required=True, type=Path, help="the deployment's Airflow home")
    parser.add_argument("--entities", required=True, type=Path, help="the deployment's entities folder")
    parser.add_argument("--example", type=Path, help="the example to copy when ENTITIES is missing inside HOME")
    args = parser.parse_args(argv)
    home, entities = args.home.resolve(), args.entities.resolve()
    if args.example is not None and not entities.exists() and entities.is_relative_to(home):
        entities.parent.mkdir(parents=True, exist_ok=True)
        copy_example(args.example, entities, home / "storage")
        print(f"the example entities of {args.example} are in {entities}, their storage under {home / 'storage'}")
    if not entities.is_dir():
        print(f"example: the entities folder {entities} does not exist", file=sys.stderr)
        return 2
    try:
        claim(storage_roots(Workspace.load([str(entities)])), home)
    except StorageTaken as taken:
        print(f"make run: {taken}", file=sys.stderr)
        return 1
    except OSError as problem:
        print(f"make run: cannot claim the storage of {entities}: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
