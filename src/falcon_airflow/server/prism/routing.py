"""Which colos a request goes to, as Falcon's Prism decided (``AbstractEntityManager.getApplicableColos``): a
cluster to every colo, a feed or process to the colos of the clusters it names (each cluster's ``colo``
attribute), a datasource to every colo (a datasource names no cluster; its feeds need it where they run)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from falcon_airflow.parsing.secure import parse_xml_bytes

ENTITY_KINDS = ("cluster", "feed", "process", "datasource")
EVERYWHERE = frozenset({"cluster", "datasource"})


class DefinitionUnreadable(ValueError):
    """A definition the Prism cannot route: not XML, or no name."""


class UnknownCluster(ValueError):
    """An entity naming a cluster the Prism has no definition of (submit the cluster through the Prism first)."""


@dataclass(frozen=True)
class Definition:
    kind: str
    name: str
    clusters: tuple[str, ...]
    """The clusters the entity names (``<clusters><cluster name=...>``); a cluster's own name for a cluster."""
    colo: str | None
    """A cluster's ``colo`` attribute."""


def _local(tag: object) -> str:
    text = str(tag)
    return text.rsplit("}", 1)[-1]


def read_definition(kind: str, content: bytes) -> Definition:
    """What routing needs of a definition; the colo servers validate the rest."""
    loaded = parse_xml_bytes(content, f"the {kind} definition")
    if loaded.root is None:
        raise DefinitionUnreadable("; ".join(issue.message for issue in loaded.issues) or "unreadable definition")
    root = loaded.root
    name = (root.get("name") or "").strip()
    if not name:
        raise DefinitionUnreadable(f"the {kind} definition has no name attribute")
    if _local(root.tag) != kind:
        raise DefinitionUnreadable(f"the definition is a <{_local(root.tag)}>, not a {kind}")
    if kind == "cluster":
        return Definition(kind, name, (name,), (root.get("colo") or "").strip() or None)
    clusters: list[str] = []
    for child in root:
        if _local(child.tag) != "clusters":
            continue
        for cluster in child:
            if _local(cluster.tag) == "cluster" and cluster.get("name"):
                clusters.append(str(cluster.get("name")).strip())
    return Definition(kind, name, tuple(dict.fromkeys(clusters)), None)


def applicable_colos(definition: Definition | None, kind: str, all_colos: Iterable[str],
                     colo_of_cluster: Callable[[str], str | None]) -> tuple[str, ...]:
    """The colos an entity lives on. ``definition`` None (the Prism has no record of it): every colo, so a request
    about an entity submitted to the colos directly still reaches them. A cluster whose colo is not one of the
    Prism's puts the entity on none there (Falcon's Prism would not reach it either)."""
    every = tuple(all_colos)
    if definition is None or kind in EVERYWHERE:
        return every
    found: list[str] = []
    for cluster in definition.clusters:
        colo = colo_of_cluster(cluster)
        if colo is None:
            raise UnknownCluster(f"{definition.name} ({kind}) names cluster {cluster}, which the Prism does not "
                                 "know: submit the cluster through the Prism first")
        found.append(colo)
    return tuple(colo for colo in every if colo in found)
