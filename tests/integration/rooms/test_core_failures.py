"""What a failure leaves behind, written by the core directly on the real Postgres and Redis.

A job given up gets a ``failed`` outcome with its reason (so its caller still hears back),
then one dead letter with the detail; a waiter on the job is told. A second give-up of the
same job stores no second outcome. A dead letter keeps a payload that is not JSON as text.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from workers.cli.main import tenant_keys
from workers.contracts.jobs import new_job
from workers.contracts.names import outcome_channel
from workers.core.context import context_of
from workers.core.failures import dead_letter, give_up
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.resources import Resources

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def resources(settings: Any, migrated_db: str) -> Iterator[Resources]:
    res = Resources.create(settings, models=Models.single(torque_model()))
    yield res
    res.close()


def test_a_job_given_up_gets_a_failed_outcome_one_dead_letter_and_its_waiter_is_told(
    resources: Resources, corpus_tenant: str
) -> None:
    tenant_keys(corpus_tenant)
    job = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", "Why is the sky blue?")
    pubsub = resources.redis.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(outcome_channel(job.tenant_id, job.job_id))
    try:
        detail = "gave up after 3 retries: connection refused"
        ctx = context_of(resources)
        first = give_up(ctx, job, {"job_id": job.job_id}, detail, "retries_exhausted")
        second = give_up(ctx, job, {"job_id": job.job_id}, detail, "retries_exhausted")
        told = [pubsub.get_message(timeout=1) for _ in range(4)]  # the first may be None
    finally:
        pubsub.close()
    assert first == {"status": "dead_letter", "reason": detail}
    assert second == first
    assert [m["data"] for m in told if m] == [b"dead_letter", b"dead_letter"]
    with transaction(resources.sessions) as session:
        outcome = repo.get_outcome(session, job.tenant_id, job.job_id)
        letters = repo.list_dead_letters(session, job.tenant_id, job_id=job.job_id)
        assert outcome is not None
        assert (outcome.status, outcome.body["reason"]) == ("failed", "retries_exhausted")
        assert outcome.body["detail"] == detail
        # One outcome however often it is given up; each give-up is on record.
        assert [(d.kind, d.reason) for d in letters] == [("job", detail), ("job", detail)]


def test_a_dead_letter_keeps_a_payload_that_is_not_json_as_its_text(
    resources: Resources,
) -> None:
    reason = f"refused {uuid.uuid4().hex}"
    result = dead_letter(context_of(resources), "message", reason, object(), None, None)
    assert result == {"status": "dead_letter", "reason": reason}
    with transaction(resources.sessions) as session:
        [letter] = [d for d in repo.list_dead_letters(session, limit=20) if d.reason == reason]
        assert letter.kind == "message" and letter.payload.startswith("<object object at")
