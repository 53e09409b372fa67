"""Webhook attempts keep their latency and a capped response body.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

import sqlalchemy as sa

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("webhook_attempts", sa.Column("latency_ms", sa.Integer))
    op.add_column("webhook_attempts", sa.Column("response_body", sa.Text))


def downgrade() -> None:
    op.drop_column("webhook_attempts", "response_body")
    op.drop_column("webhook_attempts", "latency_ms")
