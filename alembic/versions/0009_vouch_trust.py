"""Tenants may name the lowest source rank that vouches for a fact alone (``vouch_trust``).

``NULL`` (the default) vouches for nothing: any source may state a fact. With a level set, a
fact an answer gives that only lower-ranked sources state ends the turn as ``uncorroborated``
(:mod:`pipeline.vouching`).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

import sqlalchemy as sa

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tenants", sa.Column("vouch_trust", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("tenants", "vouch_trust")
