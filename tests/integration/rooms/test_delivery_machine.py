"""The delivery state machine, called directly on the real Postgres and a real receiver.

``pending`` → ``delivered`` on a 2xx; still ``pending`` with a retry due on a 5xx (the
receiver's ``Retry-After`` passed on); ``dead`` with a dead letter naming the URL on a
permanent refusal or once the attempts are used up. Every attempt is recorded, and a
delivered or dead outcome is never posted again.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from workers.cli.demo_stand_ins import WebhookReceiver
from workers.cli.main import tenant_keys
from workers.contracts.jobs import Job, new_job
from workers.core.context import context_of
from workers.core.runner import answer_job
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.delivery.machine import Step, deliver_once, is_due
from workers.runtime.resources import Resources

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"


@pytest.fixture(scope="module")
def resources(settings: Any, migrated_db: str, corpus_tenant: str) -> Iterator[Resources]:
    res = Resources.create(settings, models=Models.single(torque_model()))
    yield res
    res.close()


def _answered(res: Resources, tenant: str, url: str | None) -> Job:
    job = new_job(tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q, webhook_url=url)
    assert answer_job(job, context_of(res)).outcome is not None
    return job


def _once(res: Resources, job: Job, attempts_before: int = 0, max_attempts: int = 3) -> Step:
    return deliver_once(
        res.sessions,
        res.http,
        tenant_id=job.tenant_id,
        job_id=job.job_id,
        attempts_before=attempts_before,
        max_attempts=max_attempts,
        timeout_s=5,
    )


def _state(res: Resources, job: Job) -> tuple[str, list[int | None], list[str]]:
    with transaction(res.sessions) as session:
        outcome = repo.get_outcome(session, job.tenant_id, job.job_id)
        assert outcome is not None
        attempts = repo.list_attempts(session, job.tenant_id, job.job_id)
        letters = repo.list_dead_letters(session, job.tenant_id, job_id=job.job_id)
        return (
            outcome.delivery_status,
            [a.http_status for a in attempts],
            [f"{d.kind}: {d.reason}" for d in letters],
        )


def test_a_pending_outcome_is_delivered_once_and_then_left_alone(
    resources: Resources, corpus_tenant: str
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    with WebhookReceiver(keys.webhook_secret) as receiver:
        job = _answered(resources, corpus_tenant, receiver.url)
        assert is_due(resources.sessions, job.tenant_id, job.job_id)
        first = _once(resources, job)
        again = _once(resources, job)
        deliveries = receiver.wait_for(job.job_id, count=2, timeout_s=0.5)
    assert first == Step({"status": "delivered", "attempt": 1})
    assert again == Step({"status": "delivered"})
    assert not is_due(resources.sessions, job.tenant_id, job.job_id)
    assert [d.verified for d in deliveries] == [True]
    assert _state(resources, job) == ("delivered", [204], [])


def test_a_server_error_stays_pending_with_a_retry_then_dies_with_its_reason(
    resources: Resources, corpus_tenant: str
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    with WebhookReceiver(keys.webhook_secret, replies=[503, 500]) as receiver:
        job = _answered(resources, corpus_tenant, receiver.url)
        first = _once(resources, job, attempts_before=0, max_attempts=2)
        assert _state(resources, job)[0] == "pending"
        last = _once(resources, job, attempts_before=1, max_attempts=2)
        after = _once(resources, job, attempts_before=2, max_attempts=2)
        deliveries = receiver.wait_for(job.job_id, count=3, timeout_s=0.5)
    assert first.retry and first.result == {"status": "retrying", "attempt": 1}
    assert not last.retry and last.result["status"] == "dead_letter"
    assert after == Step({"status": "dead"})  # never posted again
    assert len(deliveries) == 2
    status, codes, letters = _state(resources, job)
    assert (status, codes) == ("dead", [503, 500])
    assert len(letters) == 1 and letters[0].startswith(f"webhook: webhook {receiver.url}")
    assert "failed 2 times" in letters[0]


def test_a_permanent_refusal_is_dead_at_the_first_attempt(
    resources: Resources, corpus_tenant: str
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    with WebhookReceiver(keys.webhook_secret, replies=[410]) as receiver:
        job = _answered(resources, corpus_tenant, receiver.url)
        step = _once(resources, job, attempts_before=0, max_attempts=10)
    assert not step.retry and step.result["status"] == "dead_letter"
    status, codes, letters = _state(resources, job)
    assert (status, codes, len(letters)) == ("dead", [410], 1)


def test_an_outcome_without_a_webhook_or_a_job_unknown_has_nothing_to_deliver(
    resources: Resources, corpus_tenant: str
) -> None:
    job = _answered(resources, corpus_tenant, None)
    assert not is_due(resources.sessions, job.tenant_id, job.job_id)
    assert _once(resources, job) == Step({"status": "nothing_to_deliver"})
    unknown = new_job(corpus_tenant, "th-none", TORQUE_Q)
    assert _once(resources, unknown) == Step({"status": "nothing_to_deliver"})
