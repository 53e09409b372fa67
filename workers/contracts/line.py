"""Each thread's line in Redis: every job seen, by submission time, before Postgres knows it.

The jobs table is a thread's line (:func:`workers.db.repository.next_in_line`), but a job
enters it only when a worker registers it, and registering needs Postgres. While Postgres is
away, jobs fail and are retried with jittered backoff, so after it returns they register in
the order their retries fire, not the order they were submitted: a later job could find
itself first in the table and run before earlier ones still waiting for their retry.

So a job also joins a sorted set ``crag:line:{tenant}:{thread}`` (score: ``submitted_at``
in whole microseconds, exact in a double; member: ``job_id``) as soon as it is enqueued
(:func:`workers.client.intake.submit_job`) and again, idempotently, whenever a worker sees
it, before anything touches Postgres. A job runs only
when no unfinished job submitted before it is still in that line. A job leaves the line when
its outcome is stored or it is dead-lettered; a member found finished, or older than
:data:`LINE_MAX_AGE_S` (past any deadline, so it can no longer be waiting its turn), is
dropped by whoever meets it. The set is in the broker's Redis, so it is exactly as durable
as the queue that holds the jobs themselves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from redis import Redis

LINE_MAX_AGE_S = 24 * 3600
"""A line member this old is ignored and dropped, seconds (deadlines are far shorter)."""


def line_key(tenant_id: str, thread_id: str) -> str:
    """The Redis key of a thread's line."""
    return f"crag:line:{tenant_id}:{thread_id}"


def join_line(
    redis: Redis, tenant_id: str, thread_id: str, job_id: str, submitted_at: datetime
) -> None:
    """Put a job in its thread's line (again: a no-op; its place is its submission time).

    Raises:
        redis.exceptions.RedisError: Redis could not be reached.
    """
    key = line_key(tenant_id, thread_id)
    pipe = redis.pipeline(transaction=False)
    pipe.zadd(key, {job_id: _score(submitted_at)}, nx=True)
    pipe.expire(key, LINE_MAX_AGE_S)
    pipe.execute()


def leave_line(redis: Redis, tenant_id: str, thread_id: str, job_id: str) -> None:
    """Take a finished or dead-lettered job out of its thread's line.

    Raises:
        redis.exceptions.RedisError: Redis could not be reached.
    """
    redis.zrem(line_key(tenant_id, thread_id), job_id)


def ahead_of(
    redis: Redis,
    tenant_id: str,
    thread_id: str,
    job_id: str,
    submitted_at: datetime,
    finished: Callable[[str], bool],
) -> str | None:
    """The first unfinished job in line before ``job_id``, or ``None`` when it is first.

    Order is by submission time, then job id (as :func:`~workers.db.repository.next_in_line`
    orders the jobs table). Members found finished or too old are dropped on the way.

    Raises:
        redis.exceptions.RedisError: Redis could not be reached.
    """
    key = line_key(tenant_id, thread_id)
    mine = _score(submitted_at)
    too_old = (time.time() - LINE_MAX_AGE_S) * 1_000_000
    members: Any = redis.zrangebyscore(key, "-inf", mine, withscores=True)
    for raw, score in members:
        member = raw.decode() if isinstance(raw, bytes) else str(raw)
        if member == job_id or (score == mine and member > job_id):
            return None
        if score < too_old or finished(member):
            redis.zrem(key, member)
            continue
        return member
    return None


def _score(submitted_at: datetime) -> int:
    """Microseconds since the epoch: exact in Redis's double scores (below 2**53)."""
    return round(submitted_at.timestamp() * 1_000_000)
