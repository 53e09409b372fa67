"""Celery tasks, thin: parse the message, call the core, map its decision to a retry.

A job goes to :func:`workers.core.runner.answer_job`, a delivery to
:func:`workers.delivery.machine.deliver_once`; what a failure leaves behind is written by
:mod:`workers.core.failures`. The only policy here is the retry policy.

Errors decide what happens to a job (:mod:`workers.contracts.errors`): transient ones
retry with exponential backoff and full jitter (Celery's own interval function); permanent ones and
exhausted retries end as dead letters with their reason; a bug stores a ``failed`` outcome
for the caller, dead-letters the job and re-raises so it shows in logs and traces. Writing a
dead letter is itself retried while Postgres is away, so a refused job is never lost.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import psycopg
import redis.exceptions
import sqlalchemy.exc
from celery import Task, shared_task
from celery.utils.time import get_exponential_backoff_interval
from sqlalchemy.orm import Session, sessionmaker

from workers.contracts.errors import PermanentJobError, TransientJobError
from workers.contracts.jobs import Job, parse_job
from workers.contracts.line import leave_line
from workers.contracts.names import (
    ANSWER_TASK,
    DEAD_LETTER_TASK,
    DELIVER_TASK,
    SWEEP_TASK,
)
from workers.core.context import JobContext, context_of
from workers.core.failures import dead_letter, give_up
from workers.core.progress import announce_outcome
from workers.core.runner import answer_job
from workers.core.turns import idle_head, job_body, wait_turn, wake_next
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.db.models import OutcomeRecord
from workers.delivery import machine
from workers.runtime.resources import get_resources
from workers.runtime.shutdown import stopping
from workers.settings import Settings

log = logging.getLogger(__name__)

# Infrastructure blinks that a retry can outlive.
TRANSIENT = (
    TransientJobError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    sqlalchemy.exc.OperationalError,
    psycopg.OperationalError,
)


def backoff(s: Settings, retries: int) -> int:
    """Seconds before retry ``retries + 1``: exponential with full jitter, capped."""
    return get_exponential_backoff_interval(
        factor=max(1, int(s.retry_backoff_s)),
        retries=retries,
        maximum=int(s.retry_backoff_max_s),
        full_jitter=True,
    )


@shared_task(name=ANSWER_TASK, bind=True, acks_late=True, max_retries=None)
def answer_question(self: Task, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Answer one job (the only argument is the job JSON) and deliver its outcome.

    Then the thread's next waiting jobs run here too, while the task is young
    (:func:`drain_thread`), and the one after them is woken through the queue.
    """
    started = time.monotonic()
    ctx = context_of(get_resources())
    if len(args) != 1 or kwargs:
        return dead_letter(
            ctx,
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
        result = answer_job(job, ctx, signed=body)
    except PermanentJobError as exc:
        result = _retrying(
            self, ctx.settings, dead_letter, ctx, "job", str(exc), body, exc.tenant_id, exc.job_id
        )
        if job is not None:  # it joined its thread's line before it was refused
            line = (job.tenant_id, job.thread_id, job.job_id)
            _retrying(self, ctx.settings, leave_line, ctx.redis, *line)
        return result
    except TRANSIENT as exc:
        assert job is not None  # parse_job raises only PermanentJobError
        if self.request.retries < ctx.settings.job_max_retries:
            log.warning("job %s: transient error, retrying: %s", job.job_id, exc)
            countdown = backoff(ctx.settings, self.request.retries)
            raise self.retry(exc=exc, countdown=countdown) from exc
        detail = f"gave up after {self.request.retries} retries: {exc}"
        return _give_up(self, ctx, job, body, detail, "retries_exhausted")
    except Exception as exc:
        if job is not None:  # a bug: the caller still gets a response, and we get the trace
            detail = f"internal error: {type(exc).__name__}: {exc}"
            _give_up(self, ctx, job, body, detail, "internal_error")
        raise
    outcome = result.outcome
    if outcome is None:  # not its turn yet: back on the queue, the worker slot is free
        wait_turn(self.app, ctx, body, result.wait_s)
        wake_next(self.app, ctx, job.tenant_id, job.thread_id)
        return {"status": "waiting", "job_id": job.job_id, "wait_s": result.wait_s}
    _publish(ctx, outcome)
    drain_thread(self, ctx, job.tenant_id, job.thread_id, started)
    return {"status": outcome.status, "job_id": outcome.job_id, "fresh": result.fresh}


def _publish(ctx: JobContext, outcome: OutcomeRecord) -> None:
    """Announce a stored outcome on the job's event stream and send its delivery task."""
    announce_outcome(ctx.redis, outcome, ctx.cipher)
    if outcome.delivery_status == "pending":  # as stored or found by answer_job
        deliver_outcome.delay(outcome.tenant_id, outcome.job_id)


def drain_thread(
    task: Task, ctx: JobContext, tenant_id: str, thread_id: str, started: float
) -> int:
    """Run the thread's next waiting jobs in this task, then wake the next one; returns how many.

    A job that ends hands its thread on without the queue in between: while the task has
    run for less than ``CRAG_THREAD_DRAIN_S`` seconds (``started``: its
    :func:`time.monotonic` start), the thread's oldest unfinished job, once the thread is idle
    (:func:`workers.core.turns.idle_head`), runs here through :func:`answer_job`, with
    every check a job off the queue gets (its turn in both lines, the lock, the fence).
    Past that time, or when the job cannot run now, its message is sent again
    (:func:`wake_next`), so one long line does not keep a worker from other threads.

    Nothing is lost or doubled by running a job here: every registered job still has its
    own message on the queue (it was put back to wait its turn), and that message finds the
    outcome stored. So a job that fails here (a blink of Postgres or Redis, a lost lock, a
    refusal) is left to that message, whose retries and dead letters are the task's. Only
    registered jobs run here (one deleted meanwhile is its message's to refuse), and none
    once the worker's soft shutdown has begun.
    """
    drained, last = 0, None
    try:
        while (head := idle_head(ctx, tenant_id, thread_id)) is not None:
            if head.job_id == last:  # ended but still first in line: left to its message
                log.warning("job %s ended but is still first on its thread", head.job_id)
                break
            last = head.job_id
            if stopping() or time.monotonic() - started >= ctx.settings.thread_drain_s:
                wake_next(task.app, ctx, tenant_id, thread_id, head)
                break
            log.info(
                "job %s runs next on thread %s/%s in this task (process %d), not via the queue",
                head.job_id,
                tenant_id,
                thread_id,
                os.getpid(),
            )
            result = answer_job(parse_job(job_body(head)), ctx, registered_only=True)
            if result.outcome is None:  # an earlier job joined the line meanwhile
                wake_next(task.app, ctx, tenant_id, thread_id)
                break
            _publish(ctx, result.outcome)
            drained += 1
    except Exception as exc:  # the job's own message runs it again, with the task's policy
        log.warning("thread %s/%s: next job left to its own message: %s", tenant_id, thread_id, exc)
    return drained


def _retrying(self: Task, settings: Settings, fn: Any, *args: Any) -> Any:
    """Run ``fn(*args)``; if Postgres or Redis blinks, retry the whole task later."""
    try:
        return fn(*args)
    except TRANSIENT as exc:
        log.warning("could not record the end of a job, retrying: %s", exc)
        raise self.retry(exc=exc, countdown=backoff(settings, self.request.retries)) from exc


def _deliver_if_due(sessions: sessionmaker[Session], tenant_id: str, job_id: str) -> None:
    """Send the outcome's delivery task while its delivery is ``pending``.

    Idempotent: a re-sent job that finds its outcome stored re-publishes it only if it is
    still pending (its first delivery task may have been lost with a worker), and
    :func:`deliver_outcome` never posts an outcome twice at once or after it was delivered.
    """
    if machine.is_due(sessions, tenant_id, job_id):
        deliver_outcome.delay(tenant_id, job_id)


def _give_up(self: Task, ctx: JobContext, job: Job, body: Any, detail: str, reason: str) -> Any:
    """Store the ``failed`` outcome and the dead letter, deliver it, wake the next job."""
    result = _retrying(self, ctx.settings, give_up, ctx, job, body, detail, reason)
    _retrying(self, ctx.settings, _deliver_if_due, ctx.sessions, job.tenant_id, job.job_id)
    wake_next(self.app, ctx, job.tenant_id, job.thread_id)
    return result


@shared_task(name=DEAD_LETTER_TASK, bind=True, acks_late=True, max_retries=None)
def record_dead_letter(self: Task, kind: str, reason: str, payload: Any) -> dict[str, Any]:
    """Record a message the broker or the consumer refused (see :mod:`workers.celery.broker`)."""
    ctx = context_of(get_resources())
    return _retrying(self, ctx.settings, dead_letter, ctx, kind, reason, payload, None, None)


@shared_task(name=DELIVER_TASK, bind=True, acks_late=True, max_retries=None)
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
    s = res.settings
    try:
        step = machine.deliver_once(
            res.sessions,
            res.http,
            tenant_id=tenant_id,
            job_id=job_id,
            attempts_before=self.request.retries,
            max_attempts=s.webhook_max_attempts,
            timeout_s=s.webhook_timeout_s,
        )
    finally:
        guard.release()
    if step.retry:
        # Only now, with the guard free: a retry sent while it was held could run at once
        # (full jitter draws 0 s), find the guard taken and end, and the delivery was lost.
        wait = max(backoff(res.settings, self.request.retries), step.retry_after_s or 0)
        raise self.retry(countdown=min(wait, s.retry_backoff_max_s))
    return step.result


@shared_task(name=SWEEP_TASK, bind=True, acks_late=True)
def retention_sweep(self: Task) -> dict[str, Any]:
    """Delete data past each tenant's retention.

    Celery beat (``crag beat``) runs it every ``CRAG_RETENTION_SWEEP_INTERVAL_S``;
    ``crag retention sweep`` runs the same by hand.
    """
    from workers.core import retention

    res = get_resources()
    with transaction(res.sessions) as session:
        report = retention.sweep(session, res.redis, repo.list_tenants(session))
    log.info("retention sweep: %s", report or "nothing to delete")
    return report
