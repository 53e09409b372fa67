"""Checking pooled Postgres connections only when they have been idle, not on every checkout.

A ping on every checkout (SQLAlchemy's ``pool_pre_ping``, psycopg_pool's
``check_connection``) is one more round trip per transaction: about two dozen per job here
(README *Fleet overhead*). A connection handed back less than :data:`IDLE_CHECK_S` ago
was working then, so it is handed out again unchecked; one idle longer is pinged first and
replaced if dead (after a Postgres restart every connection has been idle for longer than
that, since none could be used meanwhile). A connection that dies within that window fails
its statement with ``OperationalError``, which the task retries (a transient error), as a
statement in flight during a restart always did; SQLAlchemy then discards the whole pool.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, event, exc

IDLE_CHECK_S = 2.0
"""A pooled connection idle for longer than this is pinged before use, seconds."""


def ping_when_idle(engine: Engine, idle_s: float = IDLE_CHECK_S) -> None:
    """Make ``engine``'s pool ping a connection at checkout only if idle over ``idle_s``.

    SQLAlchemy's documented custom pessimistic ping: a ``checkout`` listener that raises
    ``DisconnectionError`` makes the pool discard the connection and try a fresh one.
    """

    @event.listens_for(engine, "checkin")
    def _checked_in(dbapi_conn: Any, record: Any) -> None:
        record.info["crag_idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn: Any, record: Any, proxy: Any) -> None:
        since = record.info.get("crag_idle_since")
        if since is not None and time.monotonic() - since < idle_s:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as error:
            raise exc.DisconnectionError(f"pooled connection is dead: {error}") from error


def psycopg_check_when_idle(idle_s: float = IDLE_CHECK_S) -> tuple[Callable[..., None], ...]:
    """``(check, reset)`` callbacks for a psycopg ``ConnectionPool`` that ping only idle ones.

    ``reset`` (called as a connection is returned) notes the time; ``check`` (called as it
    is handed out) runs psycopg_pool's ``check_connection`` only when it was returned more
    than ``idle_s`` seconds ago, or never.
    """
    from psycopg_pool import ConnectionPool

    returned: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    def check(conn: Any) -> None:
        since = returned.get(conn)
        if since is None or time.monotonic() - since >= idle_s:
            ConnectionPool.check_connection(conn)

    def reset(conn: Any) -> None:
        returned[conn] = time.monotonic()

    return check, reset
