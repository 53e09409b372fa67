"""What a benchmark checks before it waits on a fleet, and what it says when a wait fails.

A benchmark that enqueues jobs and waits for their outcomes sees nothing of why none come:
the worker may have exited (no checkpoint key), a service may be down, the jobs may sit in
the queue or have been dead-lettered. :func:`preflight` checks the configuration and the
services at once, before anything is started; :func:`wait_outcomes` stops as soon as the
worker exits and, on a timeout, says where the jobs are.
"""

from __future__ import annotations

import subprocess
import time
from typing import Any

from redis import Redis
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session, sessionmaker

from workers.db.models import DeadLetter, JobRecord, OutcomeRecord
from workers.settings import Settings

KEY_FIX = (
    "export CRAG_CHECKPOINT_KEY_FILE=$PWD/.infra/checkpoint-keys.json (the local key file "
    "infra/up writes; `make` sets it), or CRAG_CHECKPOINT_ENCRYPTION=false for a throwaway "
    "database"
)


class BenchSetupError(RuntimeError):
    """The benchmark cannot run or cannot go on; the message names the cause and the fix."""


def check_key(settings: Settings) -> None:
    """Check the checkpoint key is configured and readable, as a worker would at start.

    Raises:
        BenchSetupError: It is not; the message names ``CRAG_CHECKPOINT_KEY_FILE`` and the fix.
    """
    from workers.runtime.checkpointing import CheckpointKeyError, serde_from_settings

    try:
        serde_from_settings(settings)
    except CheckpointKeyError as exc:
        raise BenchSetupError(f"checkpoint key: {exc}\nfix: {KEY_FIX}") from exc


def preflight(settings: Settings) -> None:
    """Check the checkpoint key, Postgres, Redis and Elasticsearch, each within ~2 s.

    Raises:
        BenchSetupError: The key is missing or unreadable (naming ``CRAG_CHECKPOINT_KEY_FILE``
            and the fix), or a service does not answer at its configured URL.
    """
    check_key(settings)
    from corpus import make_es_client

    checks: list[tuple[str, str, Any]] = [
        ("Postgres", "CRAG_DATABASE_URL", lambda: _ping_postgres(settings.database_url)),
        (
            "Redis",
            "CRAG_REDIS_URL",
            lambda: Redis.from_url(settings.redis_url, socket_timeout=2).ping(),
        ),
        (
            "Elasticsearch",
            "CRAG_ELASTICSEARCH_URL",
            lambda: make_es_client(settings.elasticsearch_url).options(request_timeout=2).info(),
        ),
    ]
    for name, setting, check in checks:
        try:
            check()
        except Exception as exc:
            raise BenchSetupError(
                f"{name} does not answer at {setting}: {type(exc).__name__}: {exc}\n"
                "fix: start the services (infra/up) or point the setting at them"
            ) from exc


def _ping_postgres(url: str) -> None:
    from sqlalchemy import create_engine

    engine = create_engine(url, connect_args={"connect_timeout": 2})
    try:
        with engine.connect() as conn:
            conn.execute(text("select 1"))
    finally:
        engine.dispose()


def wait_outcomes(
    sessions: sessionmaker[Session],
    tenant: str,
    count: int,
    timeout_s: float,
    *,
    worker: subprocess.Popen[Any] | None = None,
    redis: Redis | None = None,
    queue: str | None = None,
    poll_s: float = 0.005,
) -> None:
    """Wait until ``tenant`` has ``count`` stored outcomes.

    Args:
        sessions: Sessions on the fleet's database.
        tenant: Tenant whose outcomes are counted.
        count: Outcomes to wait for.
        timeout_s: Longest wait, seconds.
        worker: The worker process; the wait ends at once if it exits.
        redis: The broker, to say how many messages are still queued on a timeout.
        queue: The questions queue (with ``redis``).
        poll_s: Seconds between counts (a short poll: the latency measured includes it).

    Raises:
        BenchSetupError: The worker exited, or ``timeout_s`` passed; the message says how
            many outcomes, jobs by status, dead letters and queued messages there are.
    """
    deadline = time.monotonic() + timeout_s
    done = 0
    while True:
        with sessions() as s:
            done = (
                s.scalar(
                    select(func.count())
                    .select_from(OutcomeRecord)
                    .where(OutcomeRecord.tenant_id == tenant)
                )
                or 0
            )
        if done >= count:
            return
        if worker is not None and worker.poll() is not None:
            raise BenchSetupError(
                f"the worker exited ({worker.returncode}) with {done} of {count} outcomes "
                "stored; its error is above"
            )
        if time.monotonic() >= deadline:
            raise BenchSetupError(
                f"only {done} of {count} outcomes after {timeout_s:.0f} s: "
                + _where_jobs_are(sessions, tenant, redis, queue)
            )
        time.sleep(poll_s)


def _where_jobs_are(
    sessions: sessionmaker[Session], tenant: str, redis: Redis | None, queue: str | None
) -> str:
    with sessions() as s:
        by_status = dict(
            s.execute(  # type: ignore[arg-type]
                select(JobRecord.status, func.count())
                .where(JobRecord.tenant_id == tenant)
                .group_by(JobRecord.status)
            ).all()
        )
        letters = s.scalars(
            select(DeadLetter.reason).where(DeadLetter.tenant_id == tenant).limit(3)
        ).all()
    parts = [f"jobs by status {by_status or 'none registered (no worker took one)'}"]
    if redis is not None and queue is not None:
        parts.append(f"{redis.llen(queue)} messages still queued on {queue}")
    if letters:
        parts.append(f"dead letters, e.g. {list(letters)}")
    return "; ".join(parts)
