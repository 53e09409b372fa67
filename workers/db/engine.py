"""Engine and session factory: one engine per process, created after the worker forks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session, sessionmaker

from workers.db.liveness import ping_when_idle


def make_engine(url: str, pool_size: int = 5) -> Engine:
    """Create the SQLAlchemy engine (``postgresql+psycopg://…``).

    A pooled connection is pinged before use only after it was idle a while
    (:func:`workers.db.liveness.ping_when_idle`); the pool hands out the most recently
    returned connection first (LIFO), so a busy process keeps reusing warm ones.
    """
    engine = create_engine(url, pool_size=pool_size, max_overflow=5, pool_use_lifo=True)
    ping_when_idle(engine)
    return engine


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """Sessions that do not expire objects on commit (outcomes are read after commit)."""
    return sessionmaker(engine, expire_on_commit=False)


def sessions_for(url: str) -> sessionmaker[Session]:
    """Sessions on a one-connection engine, for short-lived commands (the CLI)."""
    return make_sessionmaker(make_engine(url, pool_size=1))


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session that commits on success and rolls back on error (the task boundary's unit)."""
    with factory() as session, session.begin():
        yield session
