"""A workspace: the set of entities validated or compiled together, indexed by type and name.

Files and folders given on the command line form one workspace in which references resolve (a feed names its
clusters, a process its feeds). The first definition of a (type, name) wins; later ones are reported as
duplicates (``FA001``), the way Falcon refused to register a second entity under a taken name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from falcon_airflow.bulk import collector_paused
from falcon_airflow.entities import Cluster, Datasource, Entity, EntityType, Feed, Process
from falcon_airflow.errors import UsageError
from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing import ParsedFile
from falcon_airflow.parsing.parallel import parse_files


@dataclass(frozen=True, slots=True)
class EntityFile:
    """A file to read: the real path and the name issues show for it (as given, or as found in a folder)."""

    location: str  # the real path as text: what reading takes (a Path made per file cost a tenth of reading)
    display: str

    @property
    def path(self) -> Path:
        return Path(self.location)


def collect_files(paths: Sequence[str]) -> list[EntityFile]:
    """Expand files and folders (recursively, ``*.xml``, skipping hidden folders) in a stable order.

    A path that does not exist is a usage error: a typo in CI must not pass as "nothing to validate".
    """
    found: list[EntityFile] = []
    symlinks = False
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for item, is_symlink in _xml_files_under(os.fspath(path), given, ""):
                found.append(item)
                symlinks = symlinks or is_symlink
        elif path.exists():
            found.append(EntityFile(os.fspath(path), given))
            symlinks = True  # a file given by name may be one a folder holds too
        else:
            raise UsageError(f"no such file or folder: {given}")
    if not symlinks and len(paths) == 1:
        # One folder, walked without following links: every path found is a different name, and two names are
        # the same file only through a symlink (hard links are kept apart, as resolve() keeps them). Nothing to
        # compare, so the stat per file below is saved.
        return found
    return _once_each(found)


def _once_each(found: list[EntityFile]) -> list[EntityFile]:
    """The same file reached twice (two arguments, a symlink) is read once. Resolving every path costs a stat per
    path component; files on different inodes cannot be the same file, so only files sharing one are resolved."""
    by_inode: dict[tuple[int, int], list[EntityFile]] = {}
    for item in found:
        try:
            status = os.stat(item.location)
        except OSError:  # e.g. a dangling symlink: resolved below like the files sharing an inode
            by_inode.setdefault((-1, -1), []).append(item)
            continue
        by_inode.setdefault((status.st_dev, status.st_ino), []).append(item)
    keep: set[int] = set()
    for items in by_inode.values():
        if len(items) == 1:
            keep.add(id(items[0]))
            continue
        seen: set[Path] = set()
        for item in items:
            resolved = item.path.resolve()
            if resolved not in seen:
                seen.add(resolved)
                keep.add(id(item))
    return [item for item in found if id(item) in keep]


def _xml_files_under(folder: str, given: str, relative: str) -> Iterator[tuple[EntityFile, bool]]:
    """The ``*.xml`` files under ``folder`` as ``os.walk`` finds them (a folder's files by name, then its
    sub-folders by name; links to folders are not followed, unreadable folders are skipped), each with whether it
    is a symlink; ``relative`` is the folder's path below the one given, which names the files for issues."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    files: list[os.DirEntry[str]] = []
    folders: list[os.DirEntry[str]] = []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:
            is_folder = False
        (folders if is_folder else files).append(entry)
    for entry in sorted(files, key=lambda item: item.name):
        name = entry.name
        if name.endswith(".xml") and not name.startswith("."):
            shown = os.path.join(given, relative, name) if relative else os.path.join(given, name)
            yield EntityFile(entry.path, shown), entry.is_symlink()
    for entry in sorted(folders, key=lambda item: item.name):
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        yield from _xml_files_under(entry.path, given, os.path.join(relative, entry.name))


@dataclass(frozen=True)
class Workspace:
    """Entities by type and name, plus what was found while assembling them."""

    files: tuple[ParsedFile, ...]
    clusters: dict[str, Cluster] = field(default_factory=dict)
    feeds: dict[str, Feed] = field(default_factory=dict)
    processes: dict[str, Process] = field(default_factory=dict)
    datasources: dict[str, Datasource] = field(default_factory=dict)
    issues: tuple[Issue, ...] = ()

    @classmethod
    def from_parsed(cls, parsed: Iterable[ParsedFile]) -> Workspace:
        files = tuple(parsed)
        tables: dict[EntityType, dict[str, Entity]] = {kind: {} for kind in EntityType}
        issues: list[Issue] = []
        for item in files:
            entity = item.entity
            if entity is None:
                continue
            table = tables[entity.entity_type]
            first = table.get(entity.name)
            if first is not None:
                issues.append(Issue(
                    Level.ERROR, "FA001",
                    f"{entity.describe()} is defined twice; the first definition is in "
                    f"{first.source.file}:{first.source.line}",
                    file=entity.source.file, line=entity.source.line, entity=entity.name,
                    entity_type=entity.entity_type.value))
                continue
            table[entity.name] = entity
        return cls(
            files=files,
            clusters={name: e for name, e in tables[EntityType.CLUSTER].items() if isinstance(e, Cluster)},
            feeds={name: e for name, e in tables[EntityType.FEED].items() if isinstance(e, Feed)},
            processes={name: e for name, e in tables[EntityType.PROCESS].items() if isinstance(e, Process)},
            datasources={name: e for name, e in tables[EntityType.DATASOURCE].items() if isinstance(e, Datasource)},
            issues=tuple(issues),
        )

    @classmethod
    def load(cls, paths: Sequence[str], *, workers: int | None = 1) -> Workspace:
        """The workspace of the files and folders ``paths``; ``workers`` > 1 (or ``None``: as many as pay) reads a
        large estate's files on several cores (:mod:`falcon_airflow.parsing.parallel`), with the same result."""
        with collector_paused():
            items = [(item.location, item.display) for item in collect_files(paths)]
            return cls.from_parsed(parse_files(items, workers=workers))

    @classmethod
    def of(cls, entities: Iterable[Entity]) -> Workspace:
        """A workspace of entities built in code (tests, tools)."""
        parsed = [ParsedFile(e.source.file, e, e.entity_type, e.name, ()) for e in entities]
        return cls.from_parsed(parsed)

    # -- lookups -----------------------------------------------------------------------------------------------

    def entities(self) -> Iterator[Entity]:
        """Every registered entity: clusters, datasources, feeds, then processes (dependency order)."""
        yield from self.clusters.values()
        yield from self.datasources.values()
        yield from self.feeds.values()
        yield from self.processes.values()

    def get(self, entity_type: EntityType, name: str) -> Entity | None:
        table: dict[str, Entity] = {
            EntityType.CLUSTER: self.clusters,
            EntityType.FEED: self.feeds,
            EntityType.PROCESS: self.processes,
            EntityType.DATASOURCE: self.datasources,
        }[entity_type]  # type: ignore[assignment]
        return table.get(name)

    def dependencies(self, entity: Entity) -> list[tuple[EntityType, str]]:
        """What an entity refers to, by type and name (whether or not it is defined)."""
        if isinstance(entity, Feed):
            refs = [(EntityType.CLUSTER, cluster.name) for cluster in entity.clusters]
            for cluster in entity.clusters:
                if cluster.import_policy is not None:
                    refs.append((EntityType.DATASOURCE, cluster.import_policy.source.name))
                if cluster.export_policy is not None:
                    refs.append((EntityType.DATASOURCE, cluster.export_policy.target.name))
            return list(dict.fromkeys(refs))
        if isinstance(entity, Process):
            refs = [(EntityType.CLUSTER, cluster.name) for cluster in entity.clusters]
            refs += [(EntityType.FEED, name) for name in entity.feed_names]
            return list(dict.fromkeys(refs))
        return []

    def dependents(self, entity: Entity) -> list[Entity]:
        """Entities that refer to this one (what Falcon checked before allowing a delete)."""
        key = (entity.entity_type, entity.name)
        return [other for other in self.entities() if key in self.dependencies(other)]

    @cached_property
    def unreadable(self) -> dict[tuple[EntityType, str], ParsedFile]:
        """Files that name an entity (its type by the root element, its name by the ``name`` attribute) but could
        not be read into one (the schema or the model refused them), by (type, name); a name that a readable file
        defines is that entity's, not this file's. The store shows them as INVALID rather than as missing."""
        found: dict[tuple[EntityType, str], ParsedFile] = {}
        for item in self.files:
            if item.entity is not None or item.entity_type is None or not item.entity_name or not item.has_errors:
                continue
            key = (item.entity_type, item.entity_name)
            if self.get(*key) is None:
                found.setdefault(key, item)
        return found

    @cached_property
    def feed_groups(self) -> dict[str, list[Feed]]:
        """Feeds by group name, in workspace order (computed once: every feed's F27 check asks)."""
        groups: dict[str, list[Feed]] = {}
        for feed in self.feeds.values():
            for group in feed.groups:
                groups.setdefault(group, []).append(feed)
        return groups
