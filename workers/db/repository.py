"""Queries on the app tables. Callers own the transaction (the core says which step commits)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from workers.contracts.errors import LockLost
from workers.contracts.jobs import Job, OutcomeBody
from workers.db.models import (
    DeadLetter,
    EgressRecord,
    JobRecord,
    OutcomeRecord,
    Tenant,
    ThreadRecord,
    WebhookAttempt,
)


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def get_tenant(session: Session, tenant_id: str) -> Tenant | None:
    """Return the tenant or ``None`` when it is not registered."""
    return session.get(Tenant, tenant_id)


def add_tenant(session: Session, tenant: Tenant) -> Tenant:
    """Insert a new tenant row."""
    session.add(tenant)
    session.flush()
    return tenant


def allow_webhook_hosts(session: Session, tenant: Tenant, hosts: Sequence[str]) -> None:
    """Add ``hosts`` to the tenant's webhook allowlist (no-op when already there)."""
    if not set(hosts) <= set(tenant.webhook_allowlist):
        tenant.webhook_allowlist = sorted({*tenant.webhook_allowlist, *hosts})
        session.flush()


def list_tenants(session: Session) -> Sequence[Tenant]:
    """All tenants, by id."""
    return session.scalars(select(Tenant).order_by(Tenant.tenant_id)).all()


def get_job(session: Session, tenant_id: str, job_id: str) -> JobRecord | None:
    """The job as received, if it was ever started."""
    return session.get(JobRecord, (tenant_id, job_id))


def get_outcome(session: Session, tenant_id: str, job_id: str) -> OutcomeRecord | None:
    """The stored outcome of a job, if it finished before."""
    return session.get(OutcomeRecord, (tenant_id, job_id))


def has_ended(session: Session, tenant_id: str, job_id: str) -> bool:
    """Whether a job is over: its outcome is stored, or it was dead-lettered."""
    if session.get(OutcomeRecord, (tenant_id, job_id)) is not None:
        return True
    letter = select(DeadLetter.id).where(
        DeadLetter.tenant_id == tenant_id, DeadLetter.job_id == job_id
    )
    return session.scalar(letter.limit(1)) is not None


UNFINISHED = ("queued", "running")


def _job_values(job: Job, status: str) -> dict[str, Any]:
    return {
        "tenant_id": job.tenant_id,
        "job_id": job.job_id,
        "thread_id": job.thread_id,
        "question": job.question,
        "webhook_url": str(job.webhook_url) if job.webhook_url else None,
        "progress_url": str(job.progress_url) if job.progress_url else None,
        "options": job.options.model_dump(),
        "status": status,
        "attempts": 0,
        "submitted_at": job.submitted_at,
        "subject_id": job.subject_id,
    }


def register_job(session: Session, job: Job) -> JobRecord:
    """Record a job as ``queued`` on its thread, once; a job seen before keeps its row.

    The stored ``submitted_at`` is the job's place in its thread's line (see
    :func:`next_in_line`), so a re-sent message cannot jump the queue. One statement for a
    new job (``INSERT … RETURNING``), two for one registered meanwhile by another worker.
    """
    inserted = session.scalars(
        insert(JobRecord)
        .values(**_job_values(job, "queued"))
        .on_conflict_do_nothing(index_elements=["tenant_id", "job_id"])
        .returning(JobRecord),
        execution_options={"populate_existing": True},
    ).first()
    if inserted is not None:
        return inserted
    record = session.get(JobRecord, (job.tenant_id, job.job_id), populate_existing=True)
    assert record is not None
    return record


def next_in_line(session: Session, tenant_id: str, thread_id: str) -> JobRecord | None:
    """The thread's oldest unfinished job (by ``submitted_at``, then job_id), if any."""
    return session.scalars(
        select(JobRecord)
        .where(
            JobRecord.tenant_id == tenant_id,
            JobRecord.thread_id == thread_id,
            JobRecord.status.in_(UNFINISHED),
        )
        .order_by(JobRecord.submitted_at, JobRecord.job_id)
        .limit(1)
    ).first()


def start_job(session: Session, job: Job) -> JobRecord:
    """Record that a job is running: insert it, or count one more attempt of it (one statement).

    A job that ended meanwhile (another copy stored its outcome after the caller looked)
    is not made ``running`` again, which would keep it first in its thread's line with its
    outcome stored; its row is returned as it is.
    """
    values = _job_values(job, "running") | {"attempts": 1, "started_at": now()}
    stmt = (
        insert(JobRecord)
        .values(**values)
        .on_conflict_do_update(
            index_elements=["tenant_id", "job_id"],
            set_={"status": "running", "attempts": JobRecord.attempts + 1, "started_at": now()},
            where=JobRecord.status.in_(UNFINISHED),
        )
        .returning(JobRecord)
    )
    record = session.scalars(stmt, execution_options={"populate_existing": True}).first()
    if record is None:  # it had ended: the update's WHERE left it alone
        record = session.get(JobRecord, (job.tenant_id, job.job_id), populate_existing=True)
    assert record is not None
    return record


def claim_thread(session: Session, job: Job) -> str:
    """Record the job's thread as its tenant's if it is new; returns the thread's owner.

    Thread ids are global: the first tenant to use one owns it (``uq_threads_thread_id``).
    Usually one statement: the insert is a data-modifying CTE, and the owner is the row
    it inserted or, when the thread existed, the existing row. The outer ``SELECT`` sees
    the table as the statement's snapshot had it, so when another transaction inserted
    the thread and committed while this insert waited on it, neither branch has a row; the
    owner is then read again, in a snapshot of its own.
    """
    claimed = (
        insert(ThreadRecord)
        .values(
            tenant_id=job.tenant_id,
            thread_id=job.thread_id,
            checkpoint_thread_id=job.graph_thread_id,
            fence=0,
        )
        .on_conflict_do_nothing()
        .returning(ThreadRecord.tenant_id)
        .cte("claimed")
    )
    existing = select(ThreadRecord.tenant_id).where(ThreadRecord.thread_id == job.thread_id)
    owner = session.scalar(select(claimed.c.tenant_id).union_all(existing).limit(1))
    if owner is None:  # the thread was claimed meanwhile by a transaction this one waited on
        owner = session.scalar(existing)
    assert owner is not None
    return owner


def claim_fence(session: Session, job: Job) -> int:
    """Take the thread's next fencing token (1, 2, …); call right after taking its lock."""
    fence = session.scalar(
        insert(ThreadRecord)
        .values(
            tenant_id=job.tenant_id,
            thread_id=job.thread_id,
            checkpoint_thread_id=job.graph_thread_id,
            fence=1,
        )
        .on_conflict_do_update(
            index_elements=["tenant_id", "thread_id"], set_={"fence": ThreadRecord.fence + 1}
        )
        .returning(ThreadRecord.fence)
    )
    assert fence is not None
    return fence


def check_fence(session: Session, tenant_id: str, thread_id: str, fence: int) -> None:
    """Lock the thread's row until commit and raise unless ``fence`` is still current.

    Raises:
        LockLost: A newer holder took the thread since ``fence`` was given.
    """
    current = session.scalar(
        select(ThreadRecord.fence)
        .where(ThreadRecord.tenant_id == tenant_id, ThreadRecord.thread_id == thread_id)
        .with_for_update()
    )
    if current != fence:
        raise LockLost(
            f"fence {fence} of thread {thread_id!r} is stale (now {current}); not storing",
            tenant_id=tenant_id,
        )


def save_outcome(
    session: Session, body: OutcomeBody, webhook_id: str, has_webhook: bool
) -> tuple[OutcomeRecord, bool]:
    """Store a job's outcome (the outbox row), once, and mark the job finished.

    Returns:
        The stored row and ``True``, or the row stored earlier and ``False`` (a job has one
        outcome: the first to commit wins, e.g. an apology racing a late answer).
    """
    inserted = session.scalars(
        insert(OutcomeRecord)
        .values(
            tenant_id=body.tenant_id,
            job_id=body.job_id,
            webhook_id=webhook_id,
            status=body.status,
            body=body.model_dump(mode="json"),
            delivery_status="pending" if has_webhook else "none",
        )
        .on_conflict_do_nothing(index_elements=["tenant_id", "job_id"])
        .returning(OutcomeRecord),
        execution_options={"populate_existing": True},
    ).first()
    record = inserted or session.get(
        OutcomeRecord, (body.tenant_id, body.job_id), populate_existing=True
    )
    assert record is not None
    # The job is finished with the stored outcome's status; when the outcome was there
    # already, a job row still unfinished (a run raced the one that stored it) is mended.
    finish = update(JobRecord).where(
        JobRecord.tenant_id == body.tenant_id, JobRecord.job_id == body.job_id
    )
    if inserted is None:
        finish = finish.where(JobRecord.status.in_(UNFINISHED))
    session.execute(finish.values(status=record.status, finished_at=now()))
    return record, inserted is not None


def record_attempt(
    session: Session,
    outcome: OutcomeRecord,
    url: str,
    attempt: int,
    http_status: int | None,
    error: str | None,
    latency_ms: int | None = None,
    response_body: str | None = None,
) -> None:
    """Log one webhook delivery attempt."""
    session.add(
        WebhookAttempt(
            tenant_id=outcome.tenant_id,
            job_id=outcome.job_id,
            webhook_id=outcome.webhook_id,
            url=url,
            attempt=attempt,
            http_status=http_status,
            error=error,
            latency_ms=latency_ms,
            response_body=response_body,
        )
    )


def list_outcomes(
    session: Session, tenant_id: str | None, delivery_status: str | None, limit: int
) -> Sequence[OutcomeRecord]:
    """Newest outcomes first, optionally for one tenant and one delivery status."""
    stmt = select(OutcomeRecord).order_by(OutcomeRecord.created_at.desc()).limit(limit)
    if tenant_id:
        stmt = stmt.where(OutcomeRecord.tenant_id == tenant_id)
    if delivery_status:
        stmt = stmt.where(OutcomeRecord.delivery_status == delivery_status)
    return session.scalars(stmt).all()


def list_recent_jobs(
    session: Session, tenant_id: str | None, limit: int
) -> Sequence[tuple[JobRecord, OutcomeRecord | None]]:
    """Newest jobs first (by ``submitted_at``), each with its outcome if it has one."""
    stmt = (
        select(JobRecord, OutcomeRecord)
        .outerjoin(
            OutcomeRecord,
            and_(
                OutcomeRecord.tenant_id == JobRecord.tenant_id,
                OutcomeRecord.job_id == JobRecord.job_id,
            ),
        )
        .order_by(JobRecord.submitted_at.desc())
        .limit(limit)
    )
    if tenant_id:
        stmt = stmt.where(JobRecord.tenant_id == tenant_id)
    return [(job, outcome) for job, outcome in session.execute(stmt)]


def list_attempts(session: Session, tenant_id: str, job_id: str) -> Sequence[WebhookAttempt]:
    """A job's delivery attempts, oldest first."""
    return session.scalars(
        select(WebhookAttempt)
        .where(WebhookAttempt.tenant_id == tenant_id, WebhookAttempt.job_id == job_id)
        .order_by(WebhookAttempt.id)
    ).all()


def set_delivery_status(session: Session, outcome: OutcomeRecord, status: str) -> None:
    """Mark an outcome's delivery as ``delivered`` or ``dead``."""
    outcome.delivery_status = status


def count_attempts(session: Session, tenant_id: str, job_id: str) -> int:
    """Webhook attempts made so far for a job's outcome."""
    return (
        session.scalar(
            select(func.count())
            .select_from(WebhookAttempt)
            .where(WebhookAttempt.tenant_id == tenant_id, WebhookAttempt.job_id == job_id)
        )
        or 0
    )


def record_egress(session: Session, job: Job, provider: str, query: str) -> None:
    """Audit one query leaving for web search (its redacted form, as sent)."""
    session.add(
        EgressRecord(
            tenant_id=job.tenant_id,
            job_id=job.job_id,
            thread_id=job.thread_id,
            provider=provider,
            query=query,
        )
    )


def list_egress(
    session: Session, tenant_id: str | None, job_id: str | None, limit: int
) -> Sequence[EgressRecord]:
    """Audited web queries, newest first, optionally for one tenant or job."""
    stmt = select(EgressRecord).order_by(EgressRecord.id.desc()).limit(limit)
    if tenant_id:
        stmt = stmt.where(EgressRecord.tenant_id == tenant_id)
    if job_id:
        stmt = stmt.where(EgressRecord.job_id == job_id)
    return session.scalars(stmt).all()


def add_dead_letter(
    session: Session,
    kind: str,
    reason: str,
    payload: Any,
    tenant_id: str | None = None,
    job_id: str | None = None,
) -> DeadLetter:
    """Record something we gave up on, with why."""
    letter = DeadLetter(
        kind=kind, reason=reason, payload=payload, tenant_id=tenant_id, job_id=job_id
    )
    session.add(letter)
    session.flush()
    return letter


def list_dead_letters(
    session: Session, tenant_id: str | None = None, limit: int = 50, job_id: str | None = None
) -> Sequence[DeadLetter]:
    """Newest dead letters first, optionally for one tenant or one job."""
    stmt = select(DeadLetter).order_by(DeadLetter.id.desc()).limit(limit)
    if tenant_id:
        stmt = stmt.where(DeadLetter.tenant_id == tenant_id)
    if job_id:
        stmt = stmt.where(DeadLetter.job_id == job_id)
    return session.scalars(stmt).all()
