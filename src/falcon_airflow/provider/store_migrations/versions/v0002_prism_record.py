"""A Prism's record: the definitions and schedule states it routes, and what each colo holds.

Revision ID: f1a0c0de0002
Revises: f1a0c0de0001
Create Date: 2026-11-28 14:45:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "f1a0c0de0002"
down_revision = "f1a0c0de0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "falcon_prism_entity",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("schedule_state", sa.String(length=16), nullable=True),
        sa.Column("changed_by", sa.String(length=255), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_falcon_prism_entity")),
        sa.UniqueConstraint("kind", "name", name=op.f("uq_falcon_prism_entity_kind_name")),
    )
    op.create_table(
        "falcon_prism_copy",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("colo", sa.String(length=64), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("schedule_state", sa.String(length=16), nullable=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_falcon_prism_copy")),
        sa.UniqueConstraint("kind", "name", "colo", name=op.f("uq_falcon_prism_copy_kind_name_colo")),
    )


def downgrade() -> None:
    op.drop_table("falcon_prism_copy")
    op.drop_table("falcon_prism_entity")
