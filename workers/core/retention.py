"""Deleting data: a tenant's retention period, and deletion on request (right to erasure).

Both delete through the same function, :func:`delete_threads`, so what "a thread's data"
means is written once: its checkpoints (``checkpoints``, ``checkpoint_blobs``,
``checkpoint_writes``), its jobs and their outcomes, delivery attempts, dead letters and
egress records, its row in ``threads``, and its keys in Redis (lock, wake-ups). All
Postgres deletes of one call commit together.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from redis import Redis
from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session

from workers.core.progress import progress_key
from workers.db.models import (
    DeadLetter,
    EgressRecord,
    JobRecord,
    OutcomeRecord,
    Tenant,
    ThreadRecord,
    WebhookAttempt,
)
from workers.db.repository import UNFINISHED, now

CHECKPOINT_TABLES = ("checkpoint_writes", "checkpoint_blobs", "checkpoints")


class ThreadBusy(RuntimeError):
    """A thread to delete still has jobs queued or running."""


def delete_threads(
    session: Session, redis: Redis, tenant_id: str, threads: Sequence[str], force: bool = False
) -> dict[str, int]:
    """Delete everything stored for ``threads`` of ``tenant_id``; returns rows per table.

    Raises:
        ThreadBusy: A thread has unfinished jobs (deleting would race them); pass
            ``force`` to delete anyway (their messages then find no job and start over).
    """
    threads = sorted(set(threads))
    threads += copies_of(session, tenant_id, threads)  # replays and forks go with them
    counts: dict[str, int] = {}
    if not threads:
        return counts
    in_threads = (JobRecord.tenant_id == tenant_id) & JobRecord.thread_id.in_(threads)
    busy = session.scalar(
        select(func.count())
        .select_from(JobRecord)
        .where(in_threads, JobRecord.status.in_(UNFINISHED))
    )
    if busy and not force:
        raise ThreadBusy(f"{busy} job(s) still queued or running on these threads; retry later")
    job_ids = list(session.scalars(select(JobRecord.job_id).where(in_threads)))
    by_job: dict[str, Any] = {"webhook_attempts": WebhookAttempt, "outcomes": OutcomeRecord}
    for table, model in by_job.items():
        counts[table] = _rowcount(
            session.execute(
                delete(model).where(model.tenant_id == tenant_id, model.job_id.in_(job_ids))
            )
        )
    # A job refused at intake never got a job row; its dead letter names the thread inside.
    counts["dead_letters"] = _rowcount(
        session.execute(
            delete(DeadLetter).where(
                DeadLetter.tenant_id == tenant_id,
                DeadLetter.job_id.in_(job_ids)
                | func.jsonb_extract_path_text(DeadLetter.payload, "thread_id").in_(threads),
            )
        )
    )
    counts["egress_records"] = _rowcount(
        session.execute(
            delete(EgressRecord).where(
                EgressRecord.tenant_id == tenant_id,
                EgressRecord.thread_id.in_(threads) | EgressRecord.job_id.in_(job_ids),
            )
        )
    )
    counts["jobs"] = _rowcount(session.execute(delete(JobRecord).where(in_threads)))
    counts["threads"] = _rowcount(
        session.execute(
            delete(ThreadRecord).where(
                ThreadRecord.tenant_id == tenant_id, ThreadRecord.thread_id.in_(threads)
            )
        )
    )
    graph_ids = [f"{tenant_id}:{t}" for t in threads]
    for table in CHECKPOINT_TABLES:
        counts[table] = _rowcount(
            session.execute(
                text(f"DELETE FROM {table} WHERE thread_id = ANY(:ids)"), {"ids": graph_ids}
            )
        )
    counts["redis_keys"] = _delete_redis_keys(redis, tenant_id, threads, job_ids)
    return counts


COPY_MARK = "::"
"""Separates a replay's or fork's thread id from its original's: ``<thread>::replay-1a2b3c``
(:mod:`workers.core.replay`)."""


def copies_of(session: Session, tenant_id: str, threads: list[str]) -> list[str]:
    """The replays and forks of ``threads`` (and of those), registered to the tenant."""
    found: set[str] = set()
    for thread in threads:
        pattern = thread.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        found |= set(
            session.scalars(
                select(ThreadRecord.thread_id).where(
                    ThreadRecord.tenant_id == tenant_id,
                    ThreadRecord.thread_id.like(f"{pattern}{COPY_MARK}%", escape="\\"),
                )
            )
        )
    return sorted(found - set(threads))


def _rowcount(result: Any) -> int:
    return int(result.rowcount or 0)


def _delete_redis_keys(
    redis: Redis, tenant_id: str, threads: Sequence[str], job_ids: Sequence[str]
) -> int:
    """Delete the threads' locks and wake marks and their jobs' progress streams.

    The streams hold model-written reasons and the answer (:mod:`workers.core.progress`).
    """
    progress = [progress_key(tenant_id, job_id) for job_id in job_ids]
    deleted = int(redis.delete(*progress)) if progress else 0
    for thread in threads:
        for pattern in (f"crag:lock:{tenant_id}:{thread}", f"crag:wake:{tenant_id}:{thread}:*"):
            keys = list(redis.scan_iter(match=pattern.replace("[", "\\[")))
            deleted += int(redis.delete(*keys)) if keys else 0
    return deleted


def threads_of_subject(session: Session, tenant_id: str, subject_id: str) -> list[str]:
    """Threads of ``tenant_id`` with a job about end user ``subject_id`` (job metadata).

    Jobs refused at intake count too: only their dead letter holds the job.
    """
    jobs = session.scalars(
        select(JobRecord.thread_id).where(
            JobRecord.tenant_id == tenant_id, JobRecord.subject_id == subject_id
        )
    )
    refused = session.scalars(
        select(func.jsonb_extract_path_text(DeadLetter.payload, "thread_id")).where(
            DeadLetter.tenant_id == tenant_id,
            func.jsonb_extract_path_text(DeadLetter.payload, "metadata", "subject_id")
            == subject_id,
        )
    )
    return sorted({*jobs, *(t for t in refused if t)})


def expired_threads(session: Session, tenant: Tenant, at: datetime | None = None) -> list[str]:
    """Threads of ``tenant`` idle for longer than its retention period (no job ended since)."""
    cutoff = (at or now()) - timedelta(days=tenant.retention_days)
    # Activity by the server's clock (when a job ended), not the producer's submitted_at.
    last_job = (
        select(
            JobRecord.thread_id,
            func.max(func.coalesce(JobRecord.finished_at, JobRecord.submitted_at)).label("last"),
        )
        .where(JobRecord.tenant_id == tenant.tenant_id)
        .group_by(JobRecord.thread_id)
        .subquery()
    )
    idle = select(last_job.c.thread_id).where(last_job.c.last < cutoff)
    # Threads with checkpoints but no job row left are expired too.
    orphan = select(ThreadRecord.thread_id).where(
        ThreadRecord.tenant_id == tenant.tenant_id,
        ThreadRecord.created_at < cutoff,
        ~ThreadRecord.thread_id.in_(select(last_job.c.thread_id)),
    )
    return sorted(set(session.scalars(idle)) | set(session.scalars(orphan)))


def sweep(
    session: Session, redis: Redis, tenants: Sequence[Tenant], at: datetime | None = None
) -> dict[str, dict[str, int]]:
    """Delete each tenant's expired threads and its records older than its retention.

    Returns:
        Rows deleted per table, per tenant (tenants with nothing to delete are left out).
    """
    report: dict[str, dict[str, int]] = {}
    for tenant in tenants:
        cutoff = (at or now()) - timedelta(days=tenant.retention_days)
        counts = delete_threads(
            session, redis, tenant.tenant_id, expired_threads(session, tenant, at), force=True
        )
        # Records not tied to a surviving thread's jobs: old dead letters and egress rows.
        aged: tuple[tuple[str, Any], ...] = (
            ("dead_letters", DeadLetter),
            ("egress_records", EgressRecord),
        )
        for table, model in aged:
            counts[table] = counts.get(table, 0) + _rowcount(
                session.execute(
                    delete(model).where(
                        model.tenant_id == tenant.tenant_id, model.created_at < cutoff
                    )
                )
            )
        if any(counts.values()):
            report[tenant.tenant_id] = {k: v for k, v in counts.items() if v}
    return report
