"""Celery tasks: thin wrappers over :mod:`workers.runner` and :mod:`workers.delivery`.

Errors decide what happens to a job (see :mod:`workers.errors`): transient ones retry with
exponential backoff and full jitter (Celery's own interval function); permanent ones and
exhausted retries end as dead letters with their reason; a bug stores a ``failed`` outcome
for the caller, dead-letters the job and re-raises so it shows in logs and traces. Writing a
dead letter is itself retried while Postgres is away, so a refused job is never lost.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg
import redis.exceptions
import sqlalchemy.exc
from celery import Task, current_app, shared_task
from celery.utils.time import get_exponential_backoff_interval

from workers import delivery
from workers.broker import ANSWER_TASK, DEAD_LETTER_TASK
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.errors import PermanentJobError, TransientJobError
from workers.jobs import Job, parse_job
from workers.line import leave_line
from workers.resources import Resources, get_resources
from workers.runner import answer_job, record_failure
from workers.turns import wait_turn, wake_next

log = logging.getLogger(__name__)

# Infrastructure blinks that a retry can outlive.
TRANSIENT = (
    TransientJobError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    sqlalchemy.exc.OperationalError,
    psycopg.OperationalError,
)


def backoff(res: Resources, retries: int) -> int:
    """Seconds before retry ``retries + 1``: exponential with full jitter, capped."""
    s = res.settings
    return get_exponential_backoff_interval(
        factor=max(1, int(s.retry_backoff_s)),
        retries=retries,
        maximum=int(s.retry_backoff_max_s),
        full_jitter=True,
    )


def outcome_channel(tenant_id: str, job_id: str) -> str:
    """Redis pub/sub channel announcing that a job ended (outcome or dead letter)."""
    return f"crag:outcome:{tenant_id}:{job_id}"


@shared_task(name=ANSWER_TASK, bind=True, acks_late=True, max_retries=None)
def answer_question(self: Task, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Answer one job (the only argument is the job JSON) and deliver its outcome."""
    res = get_resources()
    if len(args) != 1 or kwargs:
        return dead_letter(
            res,
            "job",
            f"expected exactly one argument (the job), got {len(args)} and {sorted(kwargs)}",
            {"args": args, "kwargs": kwargs},
            None,
            None,
        )
    body = args[0]
    job: Job | None = None
    try:
        job = parse_job(body)
        result = answer_job(job, res, signed=body)
    except PermanentJobError as exc:
        result = _retrying(
            self, res, dead_letter, res, "job", str(exc), body, exc.tenant_id, exc.job_id
        )
        if job is not None:  # it joined its thread's line before it was refused
            _retrying(self, res, leave_line, res.redis, job.tenant_id, job.thread_id, job.job_id)
        return result
    except TRANSIENT as exc:
        assert job is not None  # parse_job raises only PermanentJobError
        if self.request.retries < res.settings.job_max_retries:
            log.warning("job %s: transient error, retrying: %s", job.job_id, exc)
            raise self.retry(exc=exc, countdown=backoff(res, self.request.retries)) from exc
        return _retrying(
            self,
            res,
            give_up,
            res,
            job,
            body,
            f"gave up after {self.request.retries} retries: {exc}",
            "retries_exhausted",
        )
    except Exception as exc:
        if job is not None:  # a bug: the caller still gets a response, and we get the trace
            _retrying(
                self, res, give_up, res, job, body, f"internal error: {type(exc).__name__}: {exc}"
            )
        raise
    outcome = result.outcome
    if outcome is None:  # not its turn yet: back on the queue, the worker slot is free
        wait_turn(self.app, res, body, result.wait_s)
        wake_next(self.app, res, job.tenant_id, job.thread_id)
        return {"status": "waiting", "job_id": job.job_id, "wait_s": result.wait_s}
    res.redis.publish(outcome_channel(outcome.tenant_id, outcome.job_id), outcome.status)
    _deliver_if_due(outcome.tenant_id, outcome.job_id, res)
    wake_next(self.app, res, job.tenant_id, job.thread_id)
    return {"status": outcome.status, "job_id": outcome.job_id, "fresh": result.fresh}


def _retrying(self: Task, res: Resources, fn: Any, *args: Any) -> Any:
    """Run ``fn(*args)``; if Postgres or Redis blinks, retry the whole task later."""
    try:
        return fn(*args)
    except TRANSIENT as exc:
        log.warning("could not record the end of a job, retrying: %s", exc)
        raise self.retry(exc=exc, countdown=backoff(res, self.request.retries)) from exc


def give_up(
    res: Resources, job: Job, body: Any, detail: str, reason: str = "internal_error"
) -> dict[str, Any]:
    """Store a ``failed`` outcome, dead-letter the job, deliver and wake the thread's next job."""
    record_failure(job, res, detail, reason)  # also takes it out of its thread's line
    result = dead_letter(res, "job", detail, body, job.tenant_id, job.job_id)
    _deliver_if_due(job.tenant_id, job.job_id, res)
    wake_next(current_app, res, job.tenant_id, job.thread_id)
    return result


def _deliver_if_due(tenant_id: str, job_id: str, res: Resources) -> None:
    """Send the outcome's delivery task while its delivery is ``pending``.

    Idempotent: a re-sent job that finds its outcome stored re-publishes it only if
    it is still pending (its first delivery task may have been lost with a worker), and
    :func:`deliver_outcome` never posts an outcome twice at once or after it was delivered.
    """
    with transaction(res.sessions) as session:
        outcome = repo.get_outcome(session, tenant_id, job_id)
        due = outcome is not None and outcome.delivery_status == "pending"
    if due:
        deliver_outcome.delay(tenant_id, job_id)


def dead_letter(
    res: Resources, kind: str, reason: str, payload: Any, tenant_id: str | None, job_id: str | None
) -> dict[str, Any]:
    """Record a dead letter, log it and tell any waiter; returns the task's result summary.

    Raises:
        sqlalchemy.exc.OperationalError: Postgres is unreachable (callers retry).
    """
    log.error("dead letter (%s) tenant=%s job=%s: %s", kind, tenant_id, job_id, reason)
    with transaction(res.sessions) as session:
        repo.add_dead_letter(session, kind, reason, _jsonable(payload), tenant_id, job_id)
    if tenant_id and job_id:
        res.redis.publish(outcome_channel(tenant_id, job_id), "dead_letter")
    return {"status": "dead_letter", "reason": reason}


def _jsonable(payload: Any) -> Any:
    if isinstance(payload, dict | list | str | int | float | bool) or payload is None:
        return payload
    return repr(payload)


@shared_task(name=DEAD_LETTER_TASK, bind=True, acks_late=True, max_retries=None)
def record_dead_letter(self: Task, kind: str, reason: str, payload: Any) -> dict[str, Any]:
    """Record a message the broker or the consumer refused (see :mod:`workers.broker`)."""
    res = get_resources()
    return _retrying(self, res, dead_letter, res, kind, reason, payload, None, None)


@shared_task(name="crag.deliver_outcome", bind=True, acks_late=True, max_retries=None)
def deliver_outcome(self: Task, tenant_id: str, job_id: str) -> dict[str, Any]:
    """POST a stored outcome to its webhook; retry with backoff, then dead-letter.

    One attempt at a time per outcome (a Redis lock), and only while the outcome's delivery
    is ``pending``: a duplicate task never posts an outcome that was delivered.
    """
    res = get_resources()
    guard = res.redis.lock(
        f"crag:deliver:{tenant_id}:{job_id}",
        timeout=res.settings.webhook_timeout_s + 30,
        thread_local=False,
    )
    if not guard.acquire(blocking=False):
        # Another task is posting it right now; it delivers, dead-letters or sends its own
        # retry after releasing the guard, so this duplicate can end.
        return {"status": "in_progress"}
    try:
        result, retry_in_s = _deliver(res, self.request.retries, tenant_id, job_id)
    finally:
        guard.release()
    if retry_in_s is not None:
        # Only now, with the guard free: a retry sent while it was held could run at once
        # (full jitter draws 0 s), find the guard taken and end, and the delivery was lost.
        raise self.retry(countdown=retry_in_s)
    return result


def _deliver(
    res: Resources, retries: int, tenant_id: str, job_id: str
) -> tuple[dict[str, Any], float | None]:
    """One delivery attempt under the guard: ``(task result, seconds to retry or None)``."""
    with transaction(res.sessions) as session:
        outcome = repo.get_outcome(session, tenant_id, job_id)
        tenant = repo.get_tenant(session, tenant_id)
        job = repo.get_job(session, tenant_id, job_id)
        if outcome is None or tenant is None or job is None or not job.webhook_url:
            return {"status": "nothing_to_deliver"}, None
        if outcome.delivery_status != "pending":
            return {"status": outcome.delivery_status}, None
        attempt = repo.count_attempts(session, tenant_id, job_id) + 1
        url, secret, allow = job.webhook_url, tenant.webhook_secret, tenant.webhook_allowlist
        msg_id, body = outcome.webhook_id, outcome.body
    result = delivery.post_outcome(
        res.http, url, secret, msg_id, body, res.settings.webhook_timeout_s, allow
    )
    exhausted = not result.ok and (
        result.permanent or retries + 1 >= res.settings.webhook_max_attempts
    )
    with transaction(res.sessions) as session:
        outcome = repo.get_outcome(session, tenant_id, job_id)
        assert outcome is not None
        repo.record_attempt(
            session,
            outcome,
            url,
            attempt,
            result.http_status,
            result.error,
            result.latency_ms,
            result.response_body,
        )
        if result.ok:
            repo.set_delivery_status(session, outcome, "delivered")
        elif exhausted:
            repo.set_delivery_status(session, outcome, "dead")
            repo.add_dead_letter(
                session,
                "webhook",
                f"webhook {url} failed {attempt} times, last: {result.error}",
                body,
                tenant_id,
                job_id,
            )
    if result.ok:
        return {"status": "delivered", "attempt": attempt}, None
    if exhausted:
        log.error("webhook for job %s dead-lettered: %s", job_id, result.error)
        return {"status": "dead_letter", "reason": result.error}, None
    wait = max(backoff(res, retries), result.retry_after_s or 0)
    return {"status": "retrying", "attempt": attempt}, min(wait, res.settings.retry_backoff_max_s)


@shared_task(name="crag.retention_sweep", bind=True, acks_late=True)
def retention_sweep(self: Task) -> dict[str, Any]:
    """Delete data past each tenant's retention.

    Celery beat (``crag beat``) runs it every ``CRAG_RETENTION_SWEEP_INTERVAL_S``;
    ``crag retention sweep`` runs the same by hand.
    """
    from workers import retention

    res = get_resources()
    with transaction(res.sessions) as session:
        report = retention.sweep(session, res.redis, repo.list_tenants(session))
    log.info("retention sweep: %s", report or "nothing to delete")
    return report
