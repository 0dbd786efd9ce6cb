"""The store's tables. Every name starts with ``falcon_`` so that they sit beside Airflow's own in its metadata
database without a clash (the provider's database manager refuses a name Airflow uses).

A change of the tables is a new revision in ``provider/store_migrations/versions/``; a test compares the
migrations' result with this module, so the two cannot drift.

* ``falcon_definition``: every version of every definition. The one in force has ``retired`` empty and
  ``current_key`` set (``<kind>/<name>``, unique: one version in force per entity); replaced and deleted versions
  keep their bytes, why they went and who made them go - Falcon's archive and history. ``revision`` is the store
  revision that brought the version in, ``retired`` the one that took it out. Extension jobs are kept here too
  (kind ``extension``, their extension in ``variant``).
* ``falcon_entity_state``: what the commands recorded about an entity beside its definition: its schedule state
  (absent while only submitted) and its ``-doAs`` user; versioned like definitions, so that the store as of any
  revision can be read back (a worker lays out the DAG bundle's version its task was parsed from).
* ``falcon_setting``: server-wide facts (safemode), one JSON value per key.
* ``falcon_store_revision``: one row, the store's revision, raised by every change the DAGs depend on (a
  definition, a schedule state, a ``-doAs`` user): the DAG bundle's version.
* ``falcon_journal``: multi-step actions in flight (see ``operate/journal.py``).
* ``falcon_audit``: one row per request, allowed or refused.
* ``falcon_lease``: who changes the store now, and on a Prism which command changes each entity (``prism:`` and
  a digest of its type and name); a lease, so that a server killed while holding it does not block the others for
  longer than its term (:mod:`.leases`).
* ``falcon_prism_entity`` and ``falcon_prism_copy``: a Prism's own record (``[falcon] mode = prism``, see
  ``server/prism/``): the definition and schedule state each entity should have on its colos, and which version and
  state each colo was last seen to hold, so that a request sent again, or ``prism sync``, finishes only what a colo
  missed.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

NAMING = {"ix": "ix_%(table_name)s_%(column_0_N_name)s", "uq": "uq_%(table_name)s_%(column_0_N_name)s",
          "pk": "pk_%(table_name)s"}
metadata = MetaData(naming_convention=NAMING)

KIND_LENGTH = 16
NAME_LENGTH = 255
"""Falcon's entity names are at most 40 characters long in practice; extension job names too. 255 leaves room."""
USER_LENGTH = 255
VARIANT_LENGTH = 64
"""What kind of extension job a definition is (``hdfs-mirroring`` ...); empty for entities."""

definition = Table(
    "falcon_definition", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("name", String(NAME_LENGTH), nullable=False),
    Column("variant", String(VARIANT_LENGTH), nullable=True),
    Column("current_key", String(KIND_LENGTH + 1 + NAME_LENGTH), nullable=True),
    Column("content", LargeBinary, nullable=False),
    Column("revision", BigInteger, nullable=False),
    Column("retired", BigInteger, nullable=True),
    Column("submitted_by", String(USER_LENGTH), nullable=False),
    Column("submitted_at", DateTime(timezone=True), nullable=False),
    Column("retired_by", String(USER_LENGTH), nullable=True),
    Column("retired_at", DateTime(timezone=True), nullable=True),
    Column("retired_because", String(16), nullable=True),
    UniqueConstraint("current_key"),
    Index(None, "kind", "name", "revision"),
    Index(None, "revision", "retired"),
)

entity_state = Table(
    "falcon_entity_state", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("name", String(NAME_LENGTH), nullable=False),
    Column("current_key", String(KIND_LENGTH + 1 + NAME_LENGTH), nullable=True),
    Column("schedule_state", String(16), nullable=True),
    Column("scheduled_by", String(USER_LENGTH), nullable=True),
    Column("scheduled_at", DateTime(timezone=True), nullable=True),
    Column("proxy_user", String(USER_LENGTH), nullable=True),
    Column("proxy_user_action", String(32), nullable=True),
    Column("proxy_user_at", DateTime(timezone=True), nullable=True),
    Column("revision", BigInteger, nullable=False),
    Column("retired", BigInteger, nullable=True),
    UniqueConstraint("current_key"),
    Index(None, "revision", "retired"),
)

setting = Table(
    "falcon_setting", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
    Column("changed_by", String(USER_LENGTH), nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
)

store_revision = Table(
    "falcon_store_revision", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("revision", BigInteger, nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
)

journal = Table(
    "falcon_journal", metadata,
    Column("id", String(64), primary_key=True),
    Column("document", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

audit = Table(
    "falcon_audit", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("user", String(USER_LENGTH), nullable=False),
    Column("document", Text, nullable=False),
    Index(None, "at"),
)

lease = Table(
    "falcon_lease", metadata,
    Column("name", String(64), primary_key=True),
    Column("holder", String(128), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

PRISM_DIGEST_LENGTH = 64
"""A definition's SHA-256, in hex."""
COLO_LENGTH = 64

prism_entity = Table(
    "falcon_prism_entity", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("name", String(NAME_LENGTH), nullable=False),
    Column("content", LargeBinary, nullable=False),
    Column("digest", String(PRISM_DIGEST_LENGTH), nullable=False),
    Column("schedule_state", String(16), nullable=True),
    Column("changed_by", String(USER_LENGTH), nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("kind", "name"),
)

prism_copy = Table(
    "falcon_prism_copy", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("kind", String(KIND_LENGTH), nullable=False),
    Column("name", String(NAME_LENGTH), nullable=False),
    Column("colo", String(COLO_LENGTH), nullable=False),
    Column("digest", String(PRISM_DIGEST_LENGTH), nullable=False),
    Column("schedule_state", String(16), nullable=True),
    Column("changed_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("kind", "name", "colo"),
)
