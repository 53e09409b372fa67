"""Alembic environment: migrates the app tables at ``CRAG_DATABASE_URL``."""

from __future__ import annotations

from logging.config import fileConfig

from sqlalchemy import create_engine

from alembic import context
from workers.db.models import Base
from workers.settings import get_settings

config = context.config
if config.config_file_name and not config.attributes.get("skip_logging_config"):
    fileConfig(config.config_file_name)

url = config.attributes.get("database_url") or get_settings().database_url


def run_offline() -> None:
    context.configure(url=url, target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    engine = create_engine(url)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
