"""App tables: tenants, jobs, outcomes, webhook attempts, dead letters.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

NOW = sa.text("now()")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("tenant_id", sa.String(63), primary_key=True),
        sa.Column("webhook_secret", sa.Text, nullable=False),
        sa.Column("created_at", TS, server_default=NOW, nullable=False),
    )
    op.create_table(
        "jobs",
        sa.Column("tenant_id", sa.String(63), sa.ForeignKey("tenants.tenant_id"), primary_key=True),
        sa.Column("job_id", sa.String(200), primary_key=True),
        sa.Column("thread_id", sa.String(128), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("webhook_url", sa.Text),
        sa.Column("options", postgresql.JSONB, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("submitted_at", TS, nullable=False),
        sa.Column("started_at", TS),
        sa.Column("finished_at", TS),
    )
    op.create_index("ix_jobs_thread", "jobs", ["tenant_id", "thread_id"])
    op.create_table(
        "outcomes",
        sa.Column("tenant_id", sa.String(63), primary_key=True),
        sa.Column("job_id", sa.String(200), primary_key=True),
        sa.Column("webhook_id", sa.String(64), nullable=False, unique=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("body", postgresql.JSONB, nullable=False),
        sa.Column("delivery_status", sa.String(16), nullable=False),
        sa.Column("created_at", TS, server_default=NOW, nullable=False),
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant_id", sa.String(63), nullable=False),
        sa.Column("job_id", sa.String(200), nullable=False),
        sa.Column("webhook_id", sa.String(64), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("http_status", sa.Integer),
        sa.Column("error", sa.Text),
        sa.Column("created_at", TS, server_default=NOW, nullable=False),
    )
    op.create_index("ix_webhook_attempts_job", "webhook_attempts", ["tenant_id", "job_id"])
    op.create_table(
        "dead_letters",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("tenant_id", sa.String(63)),
        sa.Column("job_id", sa.String(200)),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("payload", postgresql.JSONB),
        sa.Column("created_at", TS, server_default=NOW, nullable=False),
    )


def downgrade() -> None:
    for table in ("dead_letters", "webhook_attempts", "outcomes", "jobs", "tenants"):
        op.drop_table(table)
