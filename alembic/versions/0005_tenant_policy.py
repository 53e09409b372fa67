"""Tenants carry their policy and keys; threads have one owner; egress is audited.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

import base64
import secrets

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

EMPTY = sa.text("'[]'::jsonb")


def _key() -> str:
    return "csk_" + base64.b64encode(secrets.token_bytes(32)).decode()


def upgrade() -> None:
    op.add_column("tenants", sa.Column("name", sa.Text))
    op.add_column(
        "tenants", sa.Column("status", sa.String(16), nullable=False, server_default="active")
    )
    op.add_column(
        "tenants", sa.Column("web_search", sa.Boolean, nullable=False, server_default=sa.true())
    )
    for column in ("web_domain_allowlist", "web_domain_denylist", "deny_terms"):
        op.add_column(
            "tenants", sa.Column(column, postgresql.JSONB, nullable=False, server_default=EMPTY)
        )
    op.add_column("tenants", sa.Column("submission_key", sa.Text))
    op.add_column(
        "tenants",
        sa.Column("retention_days", sa.Integer, nullable=False, server_default="30"),
    )
    conn = op.get_bind()
    for (tenant_id,) in conn.execute(sa.text("SELECT tenant_id FROM tenants")).all():
        conn.execute(
            sa.text("UPDATE tenants SET submission_key = :k, name = :n WHERE tenant_id = :t"),
            {"k": _key(), "n": tenant_id, "t": tenant_id},
        )
    op.alter_column("tenants", "submission_key", nullable=False)
    op.alter_column("tenants", "name", nullable=False)

    # A thread id has one owner: another tenant naming it is refused.
    op.create_unique_constraint("uq_threads_thread_id", "threads", ["thread_id"])
    op.add_column("jobs", sa.Column("subject_id", sa.String(200)))
    op.create_index("ix_jobs_subject", "jobs", ["tenant_id", "subject_id"])

    op.create_table(
        "egress_records",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=True),
        sa.Column("tenant_id", sa.String(63), nullable=False),
        sa.Column("job_id", sa.String(200)),
        sa.Column("thread_id", sa.String(128)),
        sa.Column("provider", sa.Text, nullable=False),
        sa.Column("query", sa.Text, nullable=False, comment="The redacted query, as sent."),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )
    op.create_index("ix_egress_tenant_time", "egress_records", ["tenant_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_egress_tenant_time", table_name="egress_records")
    op.drop_table("egress_records")
    op.drop_index("ix_jobs_subject", table_name="jobs")
    op.drop_column("jobs", "subject_id")
    op.drop_constraint("uq_threads_thread_id", "threads")
    for column in (
        "retention_days",
        "submission_key",
        "deny_terms",
        "web_domain_denylist",
        "web_domain_allowlist",
        "web_search",
        "status",
        "name",
    ):
        op.drop_column("tenants", column)
