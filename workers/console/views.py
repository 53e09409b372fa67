"""What the console's pages show, read from the fleet's tables and a job's progress stream.

Plain values for the templates (no ORM objects leave a session): a row per recent job, a
job's page (its stored row, outcome, delivery attempts and dead letters), the dead letters
and the deliveries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from workers.db import repository as repo
from workers.db.models import JobRecord, OutcomeRecord


@dataclass(frozen=True)
class JobRow:
    """One job as the lists show it.

    ``status`` is the outcome's (answered, abstained, failed) or the job's own while it has
    none (queued, running); ``latency_ms`` and the counts come from the outcome.
    """

    tenant_id: str
    job_id: str
    thread_id: str
    submitted_at: datetime
    status: str
    reason: str | None = None
    route: str | None = None
    latency_ms: int | None = None
    model_calls: int | None = None
    prompt_tokens: int | None = None
    delivery_status: str | None = None


@dataclass(frozen=True)
class JobPage:
    """A job's page: its row, question, outcome body, delivery attempts and dead letters."""

    row: JobRow
    question: str
    webhook_url: str | None
    outcome: dict[str, Any] | None
    webhook_id: str | None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    dead_letters: list[dict[str, Any]] = field(default_factory=list)


def job_row(job: JobRecord, outcome: OutcomeRecord | None) -> JobRow:
    """The list row of ``job`` and its outcome (``None`` while it runs)."""
    if outcome is None:
        return JobRow(job.tenant_id, job.job_id, job.thread_id, job.submitted_at, job.status)
    body = outcome.body
    return JobRow(
        tenant_id=job.tenant_id,
        job_id=job.job_id,
        thread_id=job.thread_id,
        submitted_at=job.submitted_at,
        status=outcome.status,
        reason=body.get("reason"),
        route=body.get("route"),
        latency_ms=body.get("latency_ms"),
        model_calls=body.get("model_calls"),
        prompt_tokens=body.get("prompt_tokens"),
        delivery_status=outcome.delivery_status,
    )


def recent_jobs(session: Session, tenant_id: str | None, limit: int = 50) -> list[JobRow]:
    """The newest ``limit`` jobs, optionally of one tenant."""
    return [job_row(j, o) for j, o in repo.list_recent_jobs(session, tenant_id, limit)]


def job_page(session: Session, tenant_id: str, job_id: str) -> JobPage | None:
    """The job's page, or ``None`` if the tenant has no such job."""
    job = repo.get_job(session, tenant_id, job_id)
    if job is None:
        return None
    outcome = repo.get_outcome(session, tenant_id, job_id)
    attempts = [
        {
            "attempt": a.attempt,
            "at": a.created_at,
            "http_status": a.http_status,
            "latency_ms": a.latency_ms,
            "error": a.error,
        }
        for a in repo.list_attempts(session, tenant_id, job_id)
    ]
    letters = [
        dead_letter_row(d) for d in repo.list_dead_letters(session, tenant_id, 20, job_id=job_id)
    ]
    return JobPage(
        row=job_row(job, outcome),
        question=job.question,
        webhook_url=job.webhook_url,
        outcome=outcome.body if outcome else None,
        webhook_id=outcome.webhook_id if outcome else None,
        attempts=attempts,
        dead_letters=letters,
    )


def queued_page(tenant_id: str, job_id: str, thread_id: str) -> JobPage:
    """The page of a job that is on the queue but no worker has registered yet.

    Only for a job found in its thread's Redis line (:mod:`workers.contracts.line`), which
    the producer joins when it submits; its question is known once a worker takes it.
    """
    row = JobRow(tenant_id, job_id, thread_id, datetime.now(UTC), "queued")
    return JobPage(row=row, question="", webhook_url=None, outcome=None, webhook_id=None)


def dead_letter_row(letter: Any) -> dict[str, Any]:
    """A dead letter for the templates: id, kind, tenant, job, reason, time."""
    return {
        "id": letter.id,
        "kind": letter.kind,
        "tenant_id": letter.tenant_id,
        "job_id": letter.job_id,
        "reason": letter.reason,
        "at": letter.created_at,
    }


def dead_letters(session: Session, tenant_id: str | None, limit: int = 50) -> list[dict[str, Any]]:
    """The newest dead letters (jobs and deliveries given up on), optionally of one tenant."""
    return [dead_letter_row(d) for d in repo.list_dead_letters(session, tenant_id, limit)]


def deliveries(
    session: Session, tenant_id: str | None, status: str | None, limit: int = 50
) -> list[dict[str, Any]]:
    """The newest outcomes with their delivery status and attempts so far."""
    return [
        {
            "tenant_id": o.tenant_id,
            "job_id": o.job_id,
            "status": o.status,
            "delivery_status": o.delivery_status,
            "attempts": repo.count_attempts(session, o.tenant_id, o.job_id),
            "at": o.created_at,
        }
        for o in repo.list_outcomes(session, tenant_id, status, limit)
    ]
