"""Waking a thread's next job, called directly on the real Postgres, Redis and broker.

The thread's oldest unfinished job is re-sent to the questions queue once the thread is
idle, once per debounce window; nothing is sent while a running job holds the lock, and a
lock left by a job that has finished does not count.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from tests.integration.harness import producer
from tests.integration.rooms.lines import queued, thread_line
from workers.contracts.jobs import Job, OutcomeBody
from workers.core.context import context_of
from workers.core.turns import wake_next
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.lock import lock_name
from workers.runtime.resources import Resources

pytestmark = pytest.mark.integration


@pytest.fixture()
def resources(settings: Any, migrated_db: str) -> Iterator[Resources]:
    queue = f"crag.questions.turns-{uuid.uuid4().hex[:8]}"
    res = Resources.create(
        settings.model_copy(update={"queue": queue}), models=Models.single(torque_model())
    )
    yield res
    res.redis.delete(queue)
    res.close()


def test_the_oldest_job_of_an_idle_thread_is_sent_once_per_debounce(
    resources: Resources, corpus_tenant: str
) -> None:
    app = producer(resources.settings.redis_url)
    first, _second = thread_line(resources, corpus_tenant, 2)
    ctx = context_of(resources)
    assert wake_next(app, ctx, first.tenant_id, first.thread_id) == first.job_id
    assert wake_next(app, ctx, first.tenant_id, first.thread_id) is None  # debounced
    assert queued(resources) == [first.job_id]
    resources.redis.delete(f"crag:wake:{first.tenant_id}:{first.thread_id}:{first.job_id}")
    assert wake_next(app, ctx, first.tenant_id, first.thread_id) == first.job_id
    assert queued(resources) == [first.job_id, first.job_id]


def test_a_running_holder_keeps_the_next_job_asleep_a_finished_one_does_not(
    resources: Resources, corpus_tenant: str
) -> None:
    app = producer(resources.settings.redis_url)
    first, second = thread_line(resources, corpus_tenant, 2)
    ctx = context_of(resources)
    lock = lock_name(first.tenant_id, first.thread_id)
    resources.redis.set(lock, f"{first.job_id}@host:1:cafe", px=30_000)  # first is running
    try:
        assert wake_next(app, ctx, first.tenant_id, first.thread_id) is None
        assert queued(resources) == []
        with transaction(resources.sessions) as session:  # first ends; its lock is left
            repo.start_job(session, first)
            repo.save_outcome(
                session,
                _answered(first),
                f"msg_{first.job_id}",
                has_webhook=False,
            )
        assert wake_next(app, ctx, first.tenant_id, first.thread_id) == second.job_id
        assert queued(resources) == [second.job_id]
    finally:
        resources.redis.delete(lock)


def _answered(job: Job) -> OutcomeBody:
    return OutcomeBody(
        job_id=job.job_id, tenant_id=job.tenant_id, thread_id=job.thread_id, status="answered"
    )
