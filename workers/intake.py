"""Putting jobs on the queue: the Python entry point for upstream systems.

Non-Python producers enqueue the same Celery message (protocol v2) themselves; the README
documents its shape. The job body is the only argument of task ``crag.answer_question``.
"""

from __future__ import annotations

import uuid

from celery import Celery

from workers.app import ANSWER_TASK
from workers.jobs import Job, new_job


def enqueue(app: Celery, job: Job, queue: str) -> str:
    """Send ``job`` to ``queue``; returns the Celery message id (not the job_id).

    Args:
        app: The Celery app (``workers.app.app``).
        job: A validated job.
        queue: The questions queue (settings ``queue``, default ``crag.questions``).
    """
    message_id = str(uuid.uuid4())
    app.send_task(ANSWER_TASK, args=[job.model_dump(mode="json")], queue=queue, task_id=message_id)
    return message_id


def ask(
    app: Celery,
    queue: str,
    tenant_id: str,
    thread_id: str,
    question: str,
    *,
    webhook_url: str | None = None,
    allow_web: bool = True,
    job_id: str | None = None,
) -> Job:
    """Validate and enqueue a question; returns the job (its ``job_id`` is the idempotency key).

    Raises:
        PermanentJobError: A field is invalid; nothing was enqueued.
    """
    job = new_job(
        tenant_id, thread_id, question, webhook_url=webhook_url, allow_web=allow_web, job_id=job_id
    )
    enqueue(app, job, queue)
    return job
