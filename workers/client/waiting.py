"""Waiting for a job's outcome without polling: Redis pub/sub, then one read of the row."""

from __future__ import annotations

import time
from typing import Any

from redis import Redis

from workers.contracts.names import outcome_channel
from workers.db import repository as repo
from workers.db.engine import make_engine, make_sessionmaker
from workers.settings import Settings


def wait_for_outcome(
    settings: Settings, tenant_id: str, job_id: str, timeout_s: float
) -> dict[str, Any] | None:
    """Block until the job's outcome is stored, up to ``timeout_s`` seconds.

    Subscribes first and reads the table second, so an outcome stored between enqueueing
    and subscribing is not missed.

    Returns:
        The outcome body; for a dead-lettered job ``{"status": "dead_letter", "reason": …}``;
        ``None`` on timeout.
    """
    engine = make_engine(settings.database_url, pool_size=1)
    sessions = make_sessionmaker(engine)

    def stored() -> dict[str, Any] | None:
        with sessions() as session:
            record = repo.get_outcome(session, tenant_id, job_id)
            if record is not None:
                return dict(record.body)
            letters = repo.list_dead_letters(session, tenant_id, job_id=job_id, limit=1)
            if letters:
                return {
                    "job_id": job_id,
                    "tenant_id": tenant_id,
                    "status": "dead_letter",
                    "reason": letters[0].reason,
                }
            return None

    redis = Redis.from_url(settings.redis_url)
    pubsub = redis.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(outcome_channel(tenant_id, job_id))
    try:
        deadline = time.monotonic() + timeout_s
        body = stored()
        while body is None and (left := deadline - time.monotonic()) > 0:
            if pubsub.get_message(timeout=min(left, 5.0)) is not None:
                body = stored()
            elif left <= 5.0:
                body = stored()  # last look before giving up
        return body
    finally:
        pubsub.close()
        redis.close()
        engine.dispose()
