"""Which node a job is running: a short Redis stream per job, for people who wait on it.

A CPU model takes a minute or more per question; without this a job is silent until its
outcome. The runner appends one entry each time a node (task) of the graph starts; readers
(``crag demo``, ``crag eval``, operators with ``redis-cli XRANGE``) follow the stream.

Key ``crag:progress:{tenant_id}:{job_id}``; each entry ``{"node": name, "at": unix s}``;
the stream is capped at :data:`MAXLEN` entries and expires :data:`TTL_S` after its last
entry, so a late reader still sees the whole run. Progress is best effort: a Redis error
while writing it is logged and never fails the job. No question, answer or source text is
written (only node names).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from redis import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

MAXLEN = 200
"""Entries kept per job (a turn at its worst case runs ~60 tasks)."""

TTL_S = 3600
"""Seconds a job's stream is kept after its last entry."""


def progress_key(tenant_id: str, job_id: str) -> str:
    """The Redis stream of one job's progress."""
    return f"crag:progress:{tenant_id}:{job_id}"


class ProgressLog:
    """Writes a job's node starts to its stream (one pipelined round trip per node)."""

    def __init__(self, redis: Redis, tenant_id: str, job_id: str) -> None:
        self._redis = redis
        self._key = progress_key(tenant_id, job_id)

    def task_event(self, event: dict[str, Any]) -> None:
        """Record a LangGraph ``tasks`` stream event; only starts (they carry ``input``)."""
        if "input" not in event:
            return
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.xadd(
                self._key,
                {"node": str(event["name"]), "at": f"{time.time():.3f}"},
                maxlen=MAXLEN,
                approximate=True,
            )
            pipe.expire(self._key, TTL_S)
            pipe.execute()
        except RedisError as exc:
            log.warning("progress for %s not recorded: %s", self._key, exc)


def read_progress(
    redis: Redis, tenant_id: str, job_id: str, after: str = "0-0", block_ms: int | None = None
) -> list[tuple[str, str, float]]:
    """Entries of a job's stream after id ``after``: ``(entry id, node, unix seconds)``.

    Args:
        redis: A client of the fleet's Redis.
        tenant_id: The job's tenant.
        job_id: The job.
        after: Return entries after this stream id (``"0-0"``: from the start).
        block_ms: Wait up to this long for a new entry when there is none (``None``: don't).

    Raises:
        redis.exceptions.RedisError: Redis could not be read.
    """
    reply: Any = redis.xread({progress_key(tenant_id, job_id): after}, block=block_ms)
    entries: list[tuple[str, str, float]] = []
    for _key, items in reply or []:
        for entry_id, fields in items:
            decoded = {_text(k): _text(v) for k, v in fields.items()}
            entries.append((_text(entry_id), decoded["node"], float(decoded["at"])))
    return entries


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
