"""A job's progress events: a short Redis stream per job, for people who wait on it.

A CPU model takes a minute or more per question; without this a job is silent until its
outcome. The runner appends typed events as the graph runs (:mod:`workers.core.events`:
a node started, the route and why, each chunk's grade, the rewritten query, the redacted
web query, the verdicts, the decision, the usage so far) and, once the outcome is stored,
the final ``outcome`` event, the only one that carries the answer. Readers (``crag watch``,
``crag ask --follow``, ``crag demo``, operators with ``redis-cli XRANGE``) follow it.

Key ``crag:progress:{tenant_id}:{job_id}``; each entry has ``kind``, ``node``, ``thread``,
``at`` (unix seconds) and ``data`` (JSON). The stream is capped at :data:`MAXLEN` entries and
expires :data:`TTL_S` after its last entry, so a late reader still sees the whole run.
Progress is best effort: a Redis error while writing it is logged and never fails the job.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from redis import Redis
from redis.exceptions import RedisError

from workers.contracts.names import outcome_channel
from workers.core.events import Event, Usage, events_of_update, grades_summary, outcome_event
from workers.db.models import OutcomeRecord

log = logging.getLogger(__name__)

MAXLEN = 1000
"""Entries kept per job (a turn at its worst case runs ~60 tasks, ~4 events each)."""

TTL_S = 3600
"""Seconds a job's stream is kept after its last entry."""


def progress_key(tenant_id: str, job_id: str) -> str:
    """The Redis stream of one job's progress."""
    return f"crag:progress:{tenant_id}:{job_id}"


class ProgressLog:
    """Writes a job's events to its stream (one pipelined round trip per batch)."""

    def __init__(self, redis: Redis, tenant_id: str, job_id: str, thread_id: str = "") -> None:
        self._redis = redis
        self._key = progress_key(tenant_id, job_id)
        self._thread = thread_id
        self._usage = Usage()
        self._graded_round = False

    def task_event(self, event: dict[str, Any]) -> None:
        """Record a LangGraph ``tasks`` stream event; only starts (they carry ``input``)."""
        if "input" in event:
            self.emit([("node", {})], str(event["name"]))

    def update_event(self, chunk: dict[str, Any]) -> None:
        """Record the events of a LangGraph ``updates`` chunk (``{node: update}``)."""
        for node, update in chunk.items():
            if node == "assess_grades":
                self._graded_round = True
            self.emit(events_of_update(node, update, self._usage), node)

    def values_event(self, state: dict[str, Any]) -> None:
        """After a super-step: the ``grades`` summary once a round's grades were joined."""
        if self._graded_round:
            self._graded_round = False
            summary = grades_summary(state)
            if summary is not None:
                self.emit([summary], "assess_grades")

    def emit(self, events: list[Event], node: str = "") -> None:
        """Append ``events`` (written by ``node``) to the job's stream, best effort."""
        if not events:
            return
        at = f"{time.time():.3f}"
        try:
            pipe = self._redis.pipeline(transaction=False)
            for kind, data in events:
                fields = {"kind": kind, "node": node, "thread": self._thread, "at": at}
                pipe.xadd(
                    self._key,
                    fields | {"data": json.dumps(data, default=str)},  # type: ignore[arg-type]
                    maxlen=MAXLEN,
                    approximate=True,
                )
            pipe.expire(self._key, TTL_S)
            pipe.execute()
        except RedisError as exc:
            log.warning("progress for %s not recorded: %s", self._key, exc)


def announce_outcome(redis: Redis, outcome: OutcomeRecord) -> None:
    """Tell the job's waiters it ended: the final ``outcome`` event, then the channel.

    The event carries the stored body's answer and citations (the only event that does:
    the outcome is stored after verification). Publishing on the outcome channel wakes
    ``crag ask --wait`` and other waiters.

    Raises:
        redis.exceptions.RedisError: The channel could not be published to (the event is
            best effort, the publish is not: the task retries).
    """
    log_ = ProgressLog(redis, outcome.tenant_id, outcome.job_id, outcome.body.get("thread_id", ""))
    log_.emit([outcome_event(outcome.body)], "outcome")
    redis.publish(outcome_channel(outcome.tenant_id, outcome.job_id), outcome.status)


def read_events(
    redis: Redis, tenant_id: str, job_id: str, after: str = "0-0", block_ms: int | None = None
) -> list[dict[str, Any]]:
    """Events of a job's stream after id ``after``, as dicts.

    Each is ``{"id", "job_id", "thread_id", "kind", "node", "at", "data"}`` (``at`` in unix
    seconds); see :mod:`workers.core.events` for the kinds and their ``data``.

    Raises:
        redis.exceptions.RedisError: Redis could not be read.
    """
    reply: Any = redis.xread({progress_key(tenant_id, job_id): after}, block=block_ms)
    events: list[dict[str, Any]] = []
    for _key, items in reply or []:
        for entry_id, fields in items:
            f = {_text(k): _text(v) for k, v in fields.items()}
            events.append(
                {
                    "id": _text(entry_id),
                    "job_id": job_id,
                    "thread_id": f.get("thread", ""),
                    "kind": f.get("kind", "node"),
                    "node": f.get("node", ""),
                    "at": float(f["at"]),
                    "data": json.loads(f.get("data") or "{}"),
                }
            )
    return events


def first_event_at(redis: Redis, tenant_id: str, job_id: str) -> float | None:
    """When the job's first kept event was written (unix seconds), or ``None`` if none is.

    Raises:
        redis.exceptions.RedisError: Redis could not be read.
    """
    first: Any = redis.xrange(progress_key(tenant_id, job_id), count=1)
    for _entry_id, fields in first or []:
        return float(_text(fields.get(b"at") or fields.get("at") or 0))
    return None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
