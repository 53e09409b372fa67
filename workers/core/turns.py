"""Waking the next job of a thread, so jobs waiting for their turn hold no worker slot.

A job that is not its thread's oldest unfinished one, or finds the thread's lock taken,
goes back on the queue with a countdown (:func:`wait_turn`) instead of blocking a worker.
Whoever ends a job (or finds the thread idle) calls :func:`wake_next`, which re-sends the
thread's next job at once, so a line of jobs moves as fast as its runs end. The countdown
is the safety net: a job whose predecessor's worker died still looks again, and a job
past its deadline ends with the apology without waiting for anyone.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery

from workers.contracts.names import ANSWER_TASK
from workers.core.context import JobContext
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.db.models import JobRecord
from workers.runtime.lock import holding_job

log = logging.getLogger(__name__)

WAKE_DEBOUNCE_MS = 1000
"""A thread's next job is re-sent at most once per this many milliseconds."""


def job_body(record: JobRecord) -> dict[str, Any]:
    """The job message (the job contract, as JSON) rebuilt from its stored row."""
    return {
        "job_id": record.job_id,
        "tenant_id": record.tenant_id,
        "thread_id": record.thread_id,
        "question": record.question,
        "webhook_url": record.webhook_url,
        "progress_url": record.progress_url,
        "options": record.options,
        "submitted_at": record.submitted_at.isoformat(),
        "metadata": {"subject_id": record.subject_id} if record.subject_id else {},
    }


def wait_turn(app: Celery, ctx: JobContext, body: Any, wait_s: float) -> None:
    """Put a job back on the questions queue, to be looked at again in ``wait_s`` seconds."""
    app.send_task(ANSWER_TASK, args=[body], queue=ctx.settings.queue, countdown=wait_s)


def idle_head(ctx: JobContext, tenant_id: str, thread_id: str) -> JobRecord | None:
    """The thread's oldest unfinished job if no running job holds the thread, else ``None``.

    A lock left by a job whose outcome is stored does not count as held (the next job
    breaks it). One Redis read and one short transaction.
    """
    holder = holding_job(ctx.redis, tenant_id, thread_id)
    with transaction(ctx.sessions) as session:
        if holder is not None and repo.get_outcome(session, tenant_id, holder) is None:
            return None
        return repo.next_in_line(session, tenant_id, thread_id)


def wake_next(
    app: Celery,
    ctx: JobContext,
    tenant_id: str,
    thread_id: str,
    head: JobRecord | None = None,
) -> str | None:
    """Re-send the thread's next job now if the thread is idle; returns its job_id.

    Does nothing while the thread's lock is held by a job still running (its holder wakes
    the next job when it ends; a lock left by a job that has finished does not count, the
    woken job breaks it) or when the same job was woken within :data:`WAKE_DEBOUNCE_MS`.
    ``head`` is the thread's next job when the caller has just looked it up
    (:func:`idle_head`).
    """
    head = head or idle_head(ctx, tenant_id, thread_id)
    if head is None:
        return None
    key = f"crag:wake:{tenant_id}:{thread_id}:{head.job_id}"
    if not ctx.redis.set(key, 1, nx=True, px=WAKE_DEBOUNCE_MS):
        return None
    app.send_task(ANSWER_TASK, args=[job_body(head)], queue=ctx.settings.queue)
    log.info("woke job %s of thread %s/%s", head.job_id, tenant_id, thread_id)
    return head.job_id
