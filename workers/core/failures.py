"""The failure policy's records: dead letters and the ``failed`` outcome of a job given up.

Which error retries and which dead-letters is the task's decision
(:mod:`workers.celery.tasks`, by the taxonomy of :mod:`workers.contracts.errors`); this
module writes what that decision leaves behind, each in one transaction, and tells any
waiter. Writing may itself fail while Postgres is away: the caller retries, so a refused
job is never lost.
"""

from __future__ import annotations

import logging
from typing import Any

from workers.contracts.jobs import Job
from workers.contracts.names import outcome_channel
from workers.core.context import JobContext
from workers.core.progress import ProgressLog
from workers.core.runner import record_failure
from workers.db import repository as repo
from workers.db.engine import transaction

log = logging.getLogger(__name__)


def dead_letter(
    ctx: JobContext, kind: str, reason: str, payload: Any, tenant_id: str | None, job_id: str | None
) -> dict[str, Any]:
    """Record a dead letter, log it and tell any waiter; returns the task's result summary.

    Args:
        ctx: The core's context (its sessions and Redis are used).
        kind: ``job``, ``message`` (refused by the broker) or ``webhook``.
        reason: Why, in words an operator can act on.
        payload: What was refused (kept as JSON; anything else as its ``repr``).
        tenant_id: The job's tenant, when known.
        job_id: The job, when known; a waiter on it is woken.

    Raises:
        sqlalchemy.exc.OperationalError: Postgres is unreachable (callers retry).
    """
    log.error("dead letter (%s) tenant=%s job=%s: %s", kind, tenant_id, job_id, reason)
    with transaction(ctx.sessions) as session:
        repo.add_dead_letter(session, kind, reason, _jsonable(payload), tenant_id, job_id)
    if tenant_id and job_id:
        progress = ProgressLog(ctx.redis, tenant_id, job_id, cipher=ctx.cipher)
        progress.emit([("dead_letter", {"reason": reason})])
        ctx.redis.publish(outcome_channel(tenant_id, job_id), "dead_letter")
    return {"status": "dead_letter", "reason": reason}


def give_up(
    ctx: JobContext, job: Job, body: Any, detail: str, reason: str = "internal_error"
) -> dict[str, Any]:
    """End a job the fleet could not answer: a ``failed`` outcome, then its dead letter.

    The outcome (``reason`` ``internal_error`` or ``retries_exhausted``) is stored first, so
    the caller still gets a response; storing it also takes the job out of its thread's
    line. The caller then delivers it and wakes the thread's next job.

    Raises:
        sqlalchemy.exc.OperationalError: Postgres is unreachable (callers retry).
    """
    record_failure(job, ctx, detail, reason)
    return dead_letter(ctx, "job", detail, body, job.tenant_id, job.job_id)


def _jsonable(payload: Any) -> Any:
    if isinstance(payload, dict | list | str | int | float | bool) or payload is None:
        return payload
    return repr(payload)
