"""Tenants rank their sources and choose what a conflict between kept sources ends in.

``source_trust`` holds ``PATTERN=LEVEL`` rules (shell globs on a source's locator, first
match wins; unmatched index chunks rank 1, web results 0); ``on_conflict`` is ``abstain``
(``conflicting_sources``) or ``both`` (an answer stating both values with their citations).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "tenants",
        sa.Column(
            "source_trust",
            postgresql.JSONB(),
            nullable=False,
            server_default=sa.text("'[]'::jsonb"),
        ),
    )
    op.add_column(
        "tenants",
        sa.Column("on_conflict", sa.String(16), nullable=False, server_default="abstain"),
    )
    op.create_check_constraint(
        "tenants_on_conflict_known", "tenants", "on_conflict IN ('abstain', 'both')"
    )


def downgrade() -> None:
    op.drop_constraint("tenants_on_conflict_known", "tenants", type_="check")
    op.drop_column("tenants", "on_conflict")
    op.drop_column("tenants", "source_trust")
