"""The store's tables: definitions and entity states with their history, settings, the revision, journals, the
audit trail and the lease.

Revision ID: f1a0c0de0001
Revises:
Create Date: 2026-11-28 03:21:14.635158
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "f1a0c0de0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "falcon_audit",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user", sa.String(length=255), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_falcon_audit")),
    )
    with op.batch_alter_table("falcon_audit", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_falcon_audit_at"), ["at"], unique=False)

    op.create_table(
        "falcon_definition",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("variant", sa.String(length=64), nullable=True),
        sa.Column("current_key", sa.String(length=272), nullable=True),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("revision", sa.BigInteger(), nullable=False),
        sa.Column("retired", sa.BigInteger(), nullable=True),
        sa.Column("submitted_by", sa.String(length=255), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_by", sa.String(length=255), nullable=True),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retired_because", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_falcon_definition")),
        sa.UniqueConstraint("current_key", name=op.f("uq_falcon_definition_current_key")),
    )
    with op.batch_alter_table("falcon_definition", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_falcon_definition_kind_name_revision"), ["kind", "name", "revision"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_falcon_definition_revision_retired"), ["revision", "retired"], unique=False
        )

    op.create_table(
        "falcon_entity_state",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("current_key", sa.String(length=272), nullable=True),
        sa.Column("schedule_state", sa.String(length=16), nullable=True),
        sa.Column("scheduled_by", sa.String(length=255), nullable=True),
        sa.Column("scheduled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("proxy_user", sa.String(length=255), nullable=True),
        sa.Column("proxy_user_action", sa.String(length=32), nullable=True),
        sa.Column("proxy_user_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revision", sa.BigInteger(), nullable=False),
        sa.Column("retired", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_falcon_entity_state")),
        sa.UniqueConstraint("current_key", name=op.f("uq_falcon_entity_state_current_key")),
    )
    with op.batch_alter_table("falcon_entity_state", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_falcon_entity_state_revision_retired"), ["revision", "retired"], unique=False
        )

    op.create_table(
        "falcon_journal",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_falcon_journal")),
    )
    op.create_table(
        "falcon_lease",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("holder", sa.String(length=128), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_falcon_lease")),
    )
    op.create_table(
        "falcon_setting",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("changed_by", sa.String(length=255), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_falcon_setting")),
    )
    op.create_table(
        "falcon_store_revision",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("revision", sa.BigInteger(), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_falcon_store_revision")),
    )
    # the one row the store raises with every change (the DAG bundle's version)
    revisions = sa.table(
        "falcon_store_revision",
        sa.column("id", sa.Integer()),
        sa.column("revision", sa.BigInteger()),
        sa.column("changed_at", sa.DateTime(timezone=True)),
    )
    op.bulk_insert(revisions, [{"id": 1, "revision": 0, "changed_at": datetime(1970, 1, 1, tzinfo=UTC)}])


def downgrade() -> None:
    op.drop_table("falcon_store_revision")
    op.drop_table("falcon_setting")
    op.drop_table("falcon_lease")
    op.drop_table("falcon_journal")
    with op.batch_alter_table("falcon_entity_state", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_falcon_entity_state_revision_retired"))

    op.drop_table("falcon_entity_state")
    with op.batch_alter_table("falcon_definition", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_falcon_definition_revision_retired"))
        batch_op.drop_index(batch_op.f("ix_falcon_definition_kind_name_revision"))

    op.drop_table("falcon_definition")
    with op.batch_alter_table("falcon_audit", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_falcon_audit_at"))

    op.drop_table("falcon_audit")
