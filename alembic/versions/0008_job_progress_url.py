"""Jobs keep their ``progress_url``, so a job re-sent from its row (woken for its turn on a
busy thread) still posts its progress events there.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

import sqlalchemy as sa

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("progress_url", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("jobs", "progress_url")
