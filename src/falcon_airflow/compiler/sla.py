"""Falcon's SLAs become monitoring DAGs: a feed's ``<sla slaLow slaHigh>`` and a process's ``<sla shouldStartIn
shouldEndIn>`` per cluster, one run per instance (see :class:`~falcon_airflow.compiler.specs.SlaDagSpec`).

Monitoring starts with the schedule, as Falcon's SLA service watched the instances after the entity was scheduled:
no catch-up of past instances.
"""

from __future__ import annotations

from collections.abc import Mapping

from falcon_airflow.compiler.common import (
    doc_header,
    group_access_of,
    owner_of,
    process_dag_id,
    sla_dag_id,
    source_of,
    tags_of,
)
from falcon_airflow.compiler.messaging import messaging_of
from falcon_airflow.compiler.specs import Schedule, SlaDagSpec
from falcon_airflow.entities import Cluster, Feed, FeedCluster, Process, ProcessCluster
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.timekeeping import Frequency, format_falcon_date


def _seconds(frequency: Frequency | None) -> int | None:
    return None if frequency is None else int(frequency.millis // 1000)


def compile_feed_sla(clusters: Mapping[str, Cluster], feed: Feed, placement: FeedCluster) -> SlaDagSpec | None:
    """The SLA monitor of a feed on a cluster, when the feed (or its cluster entry) declares an SLA."""
    sla = feed.sla_for(placement)
    if sla is None:
        return None
    cluster = clusters.get(placement.name)
    binding = FeedOnCluster(feed, placement, cluster).binding()
    doc = "\n".join([doc_header(feed, f"SLA on cluster `{placement.name}`"),
                     f"Each instance is to be available by its nominal time + slaLow {sla.sla_low} (else it "
                     f"missed slaLow) and + slaHigh {sla.sla_high} (else it missed slaHigh).", "",
                     f"- availability: `{binding.location}`" + (f" + `{binding.availability_flag}`"
                                                                if binding.availability_flag else "")])
    return SlaDagSpec(
        dag_id=sla_dag_id("feed", feed.name, placement.name), source=source_of(feed), cluster=placement.name,
        schedule=Schedule(start=format_falcon_date(placement.validity.start),
                          end=format_falcon_date(placement.validity.end), frequency=str(feed.frequency),
                          timezone=feed.timezone, catchup=False),
        low="slaLow", low_seconds=_seconds(sla.sla_low), high="slaHigh", high_seconds=_seconds(sla.sla_high),
        feed_binding=binding, owner=owner_of(feed.acl), group_access=group_access_of(feed.acl),
        tags=tags_of(feed.tag_pairs, "feed", "sla"), doc_md=doc, messaging=messaging_of(cluster, feed.property_map),
        emails=feed.notification.recipients if feed.notification is not None else ())


def compile_process_sla(clusters: Mapping[str, Cluster], process: Process,
                        placement: ProcessCluster) -> SlaDagSpec | None:
    """The SLA monitor of a process on a cluster, when it declares ``shouldStartIn`` or ``shouldEndIn``."""
    sla = placement.sla if placement.sla is not None else process.sla
    if sla is None or (sla.should_start_in is None and sla.should_end_in is None):
        return None
    cluster = clusters.get(placement.name)
    watched = process_dag_id(process.name, placement.name)
    lines = [f"by nominal time + shouldStartIn {sla.should_start_in} its work has started"
             if sla.should_start_in is not None else "",
             f"by nominal time + shouldEndIn {sla.should_end_in} its work has ended"
             if sla.should_end_in is not None else ""]
    doc = "\n".join([doc_header(process, f"SLA on cluster `{placement.name}`"),
                     f"Watches the runs of `{watched}`: " + "; ".join(line for line in lines if line) + "."])
    return SlaDagSpec(
        dag_id=sla_dag_id("process", process.name, placement.name), source=source_of(process),
        cluster=placement.name,
        schedule=Schedule(start=format_falcon_date(placement.validity.start),
                          end=format_falcon_date(placement.validity.end), frequency=str(process.frequency),
                          timezone=process.timezone, catchup=False),
        low="shouldStartIn" if sla.should_start_in is not None else None, low_seconds=_seconds(sla.should_start_in),
        high="shouldEndIn" if sla.should_end_in is not None else None, high_seconds=_seconds(sla.should_end_in),
        process_dag_id=watched, owner=owner_of(process.acl), group_access=group_access_of(process.acl),
        tags=tags_of(process.tag_pairs, "process", "sla"), doc_md=doc,
        messaging=messaging_of(cluster, process.property_map),
        emails=process.notification.recipients if process.notification is not None else ())
