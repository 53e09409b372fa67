"""Tenants choose their retrieval: BM25, or hybrid (BM25 + dense vectors, fused by RRF).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

import sqlalchemy as sa

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "tenants", sa.Column("retrieval", sa.String(16), nullable=False, server_default="bm25")
    )
    op.create_check_constraint(
        "tenants_retrieval_known", "tenants", "retrieval IN ('bm25', 'hybrid')"
    )


def downgrade() -> None:
    op.drop_constraint("tenants_retrieval_known", "tenants", type_="check")
    op.drop_column("tenants", "retrieval")
