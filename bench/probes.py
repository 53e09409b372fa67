"""Counting and timing probes for one process's clients, for :mod:`bench.profile_job`.

Each probe wraps a library method (SQLAlchemy's cursor events, psycopg's ``Connection.wait``
and cursor calls, redis-py's command and pipeline calls, Elasticsearch's transport, httpx's
``send``, the checkpointer's methods, the key ring) and adds its calls and wall time to a
named :class:`Meter`. Wall time of a probe includes any probe nested in it: the table says
which rows are parts of which. A profiling tool only: it patches classes process-wide.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Meter:
    """Calls, items (statements, rows, commands) and wall seconds of one kind of work."""

    calls: int = 0
    items: int = 0
    seconds: float = 0.0


@dataclass
class Probes:
    """Named meters; :meth:`install` wraps the libraries, :meth:`reset` zeroes the meters."""

    meters: dict[str, Meter] = field(default_factory=lambda: defaultdict(Meter))
    statements: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    _local: threading.local = field(default_factory=threading.local)

    def reset(self) -> None:
        """Zero every meter (after a warm-up)."""
        self.meters.clear()
        self.statements.clear()

    def timed(
        self,
        owner: Any,
        name: str,
        meter: str,
        items: Callable[..., int] | None = None,
        *,
        scope: bool = False,
        scoped: bool = False,
    ) -> None:
        """Wrap ``owner.name`` so each call adds to ``meter`` (and ``items(*args)`` items).

        With ``scope``, calls made inside it (on the same thread) are attributed to it by
        probes installed with ``scoped``, whose meter is then ``"<meter> in <scope>"``.
        """
        original = getattr(owner, name)
        meters = self.meters
        local = self._local

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = meter
            if scoped:
                stack = getattr(local, "stack", None)
                key = f"{meter} in {stack[-1] if stack else 'app tables'}"
            m = meters[key]
            m.calls += 1
            if items is not None:
                m.items += items(*args, **kwargs)
            if scope:
                local.__dict__.setdefault("stack", []).append(meter)
            t = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                m.seconds += time.perf_counter() - t
                if scope:
                    local.stack.pop()

        setattr(owner, name, wrapper)

    def install(self, engine: Any) -> None:
        """Wrap SQLAlchemy (on ``engine``), psycopg, redis-py, Elasticsearch, httpx, LangGraph."""
        import elastic_transport
        import httpx
        import psycopg
        import redis.client
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
        from sqlalchemy import event

        from workers.runtime.checkpointing import GuardedSaver, KeyRing

        started: dict[int, float] = {}

        @event.listens_for(engine, "before_cursor_execute")
        def _before(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
            started[id(cursor)] = time.perf_counter()
            m = self.meters["sql: app tables (SQLAlchemy)"]
            m.calls += 1
            self.statements[_shape(statement)] += 1

        @event.listens_for(engine, "after_cursor_execute")
        def _after(conn: Any, cursor: Any, *_: Any) -> None:
            t = started.pop(id(cursor), None)
            if t is not None:
                self.meters["sql: app tables (SQLAlchemy)"].seconds += time.perf_counter() - t

        @event.listens_for(engine, "commit")
        def _commit(conn: Any) -> None:
            self.meters["sql: app transactions (commits)"].calls += 1

        # SQLAlchemy's connection also goes through psycopg: its waits count as round trips
        # of the app tables; the checkpointer's are counted apart by the saver probes below.
        self.timed(psycopg.Connection, "wait", "postgres waits", scoped=True)
        self.timed(psycopg.Cursor, "execute", "psycopg execute", scoped=True)
        self.timed(
            psycopg.Cursor,
            "executemany",
            "psycopg executemany",
            scoped=True,
            items=lambda _c, _q, rows, **_: len(rows),
        )
        for method in ("put", "put_writes", "get_tuple", "list"):
            self.timed(GuardedSaver, method, f"checkpointer.{method}", scope=True)
        self.timed(KeyRing, "encrypt", "encryption (AES-GCM encrypt)")
        self.timed(KeyRing, "decrypt", "encryption (AES-GCM decrypt)")
        self.timed(JsonPlusSerializer, "dumps_typed", "serialise (JsonPlus dumps)")
        self.timed(JsonPlusSerializer, "loads_typed", "serialise (JsonPlus loads)")
        self.timed(redis.client.Redis, "execute_command", "redis commands (one round trip each)")
        self.timed(
            redis.client.Pipeline,
            "execute",
            "redis pipelines (one round trip each)",
            lambda p, *_a, **_k: len(p.command_stack),
        )
        self.timed(elastic_transport.Transport, "perform_request", "elasticsearch requests")
        self.timed(httpx.Client, "send", "model calls (HTTP)")
        try:
            import httpx2  # the OpenAI SDK's own fork of httpx, when installed

            self.timed(httpx2.Client, "send", "model calls (HTTP)")
        except ImportError:
            pass


def _shape(statement: str) -> str:
    """A statement's kind and table: e.g. ``INSERT jobs``."""
    words = statement.split()
    verb = words[0].upper() if words else "?"
    table = "?"
    for key in ("INTO", "FROM", "UPDATE"):
        if key in words:
            i = words.index(key)
            if i + 1 < len(words):
                table = words[i + 1].strip('"(')
                break
    return f"{verb} {table}"
