"""Putting jobs on the queue: the Python entry point for upstream systems.

Non-Python producers enqueue the same Celery message (protocol v2) themselves; the README
documents its shape. The job body is the only argument of task ``crag.answer_question``.
"""

from __future__ import annotations

import uuid
from functools import lru_cache
from typing import Any

from celery import Celery
from redis import Redis

from workers.contracts.jobs import Job, new_job
from workers.contracts.line import join_line
from workers.contracts.names import ANSWER_TASK
from workers.contracts.signing import sign_job


def submit_job(app: Celery, job: Job, queue: str, key: str) -> str:
    """Sign ``job`` with the tenant's submission key and send it to ``queue``.

    Args:
        app: The Celery app (``workers.celery.app.app``).
        job: A validated job.
        queue: The questions queue (settings ``queue``, default ``crag.questions``).
        key: The tenant's job-submission key (``csk_…``; see :mod:`workers.contracts.signing`).

    Returns:
        The Celery message id (not the job_id).

    The job also joins its thread's line in the broker's Redis (:mod:`workers.contracts.line`), so
    its place in the thread's order is kept even before a worker has seen it.
    """
    body = sign_job(job.model_dump(mode="json", exclude={"signed_at", "signature"}), key)
    message_id = str(uuid.uuid4())
    app.send_task(ANSWER_TASK, args=[body], queue=queue, task_id=message_id)
    join_line(_redis(app.conf.broker_url), job.tenant_id, job.thread_id, job.job_id,
              job.submitted_at)  # fmt: skip
    return message_id


@lru_cache(maxsize=4)
def _redis(url: str) -> Redis:
    return Redis.from_url(url)


def submit_question(
    app: Celery,
    queue: str,
    tenant_id: str,
    thread_id: str,
    question: str,
    *,
    key: str,
    **options: Any,
) -> Job:
    """Validate, sign and enqueue a question; returns the job (``job_id``: idempotency key).

    Args:
        app: The Celery app.
        queue: The questions queue.
        tenant_id: Tenant id.
        thread_id: Conversation thread id.
        question: The question.
        key: The tenant's job-submission key.
        **options: ``webhook_url``, ``allow_web``, ``job_id``, ``subject_id``… (see
            :func:`~workers.contracts.jobs.new_job`).

    Raises:
        PermanentJobError: A field is invalid; nothing was enqueued.
    """
    job = new_job(tenant_id, thread_id, question, **options)
    submit_job(app, job, queue, key)
    return job
