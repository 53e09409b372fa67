"""The webhook delivery task in-process, on the real Postgres and Redis.

Its guard (one attempt at a time per outcome) must be free before a retry is sent: full
jitter draws a 0 s countdown one time in three on the first retry, a retry sent while the
guard was still held then ran at once on the other pool process, found the guard taken, and
ended, leaving the outcome ``pending`` forever (a CI run lost a delivery that way).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from workers.celery import tasks
from workers.cli.demo_stand_ins import WebhookReceiver
from workers.cli.main import tenant_keys
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.runner import answer_job
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.resources import Resources, set_resources

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"


@pytest.fixture(scope="module")
def resources(settings: Any, migrated_db: str, corpus_tenant: str) -> Iterator[Resources]:
    res = Resources.create(settings, models=Models.single(torque_model()))
    set_resources(res)
    yield res
    set_resources(None)
    res.close()


def test_a_retry_is_sent_only_once_the_guard_is_free_and_the_outcome_is_delivered_once(
    resources: Resources, corpus_tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    with WebhookReceiver(keys.webhook_secret, replies=[500, 503]) as receiver:
        job = new_job(
            corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q, webhook_url=receiver.url
        )
        assert answer_job(job, context_of(resources)).outcome is not None
        guard = f"crag:deliver:{job.tenant_id}:{job.job_id}"
        held_at_retry: list[bool] = []
        task = tasks.deliver_outcome
        original = task.retry

        def retry(*args: Any, **kwargs: Any) -> Any:
            held_at_retry.append(bool(resources.redis.exists(guard)))
            return original(*args, **kwargs)

        monkeypatch.setattr(task, "retry", retry)
        # Eager: each retry runs at once, as a 0 s countdown on an idle pool process would.
        result = task.apply(args=(job.tenant_id, job.job_id)).get()
        deliveries = receiver.wait_for(job.job_id, count=4, timeout_s=0)

    assert held_at_retry == [False, False]
    assert result == {"status": "delivered", "attempt": 3}
    assert [d.verified for d in deliveries] == [True, True, True]
    with transaction(resources.sessions) as session:
        outcome = repo.get_outcome(session, job.tenant_id, job.job_id)
        assert outcome is not None and outcome.delivery_status == "delivered"
        assert repo.count_attempts(session, job.tenant_id, job.job_id) == 3


def test_a_duplicate_task_finding_the_guard_taken_posts_nothing(
    resources: Resources, corpus_tenant: str
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    with WebhookReceiver(keys.webhook_secret) as receiver:
        job = new_job(
            corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q, webhook_url=receiver.url
        )
        answer_job(job, context_of(resources))
        holder = resources.redis.lock(f"crag:deliver:{job.tenant_id}:{job.job_id}", timeout=30)
        assert holder.acquire(blocking=False)
        try:
            busy = tasks.deliver_outcome.apply(args=(job.tenant_id, job.job_id)).get()
        finally:
            holder.release()
        done = tasks.deliver_outcome.apply(args=(job.tenant_id, job.job_id)).get()
        again = tasks.deliver_outcome.apply(args=(job.tenant_id, job.job_id)).get()
        deliveries = receiver.wait_for(job.job_id, count=2, timeout_s=0.5)

    assert busy == {"status": "in_progress"}
    assert done == {"status": "delivered", "attempt": 1}
    assert again == {"status": "delivered"}
    assert len(deliveries) == 1
