"""Threads carry a fencing token; jobs wait their turn in the jobs table.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

import sqlalchemy as sa

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "threads",
        sa.Column("tenant_id", sa.String(63), sa.ForeignKey("tenants.tenant_id"), primary_key=True),
        sa.Column("thread_id", sa.String(128), primary_key=True),
        sa.Column("checkpoint_thread_id", sa.Text, nullable=False, unique=True),
        sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )
    # The next job of a thread: its oldest unfinished one, in submission order.
    op.create_index("ix_jobs_thread_turn", "jobs", ["tenant_id", "thread_id", "submitted_at"])


def downgrade() -> None:
    op.drop_index("ix_jobs_thread_turn", table_name="jobs")
    op.drop_table("threads")
