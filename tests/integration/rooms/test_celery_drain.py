"""A job's task runs its thread's next waiting jobs itself, on the real Postgres and Redis.

The answer task, called in process: after its own job it runs the thread's registered
waiting jobs in submission order without the queue in between, while it is younger than
``CRAG_THREAD_DRAIN_S``; past that, or when a job cannot run now (an earlier job is in the
thread's Redis line but not yet registered), it wakes the next job through the queue instead.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from tests.integration.rooms.lines import queued, thread_line
from workers.celery import tasks
from workers.celery.app import app as celery_app
from workers.contracts.jobs import Job
from workers.contracts.names import ANSWER_TASK
from workers.core.context import context_of
from workers.core.turns import job_body
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.db.models import OutcomeRecord
from workers.runtime import shutdown
from workers.runtime.resources import Resources, set_resources

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"


@pytest.fixture()
def resources(
    request: pytest.FixtureRequest, settings: Any, migrated_db: str, corpus_tenant: str
) -> Iterator[Resources]:
    """The process's resources on a private queue; settings overridden by the test's param."""
    queue = f"crag.questions.drain-{uuid.uuid4().hex[:8]}"
    update = {"queue": queue, **getattr(request, "param", {})}
    res = Resources.create(settings.model_copy(update=update), models=Models.single(torque_model()))
    set_resources(res)
    yield res
    set_resources(None)
    res.redis.delete(queue)
    res.close()


def _outcomes(res: Resources, jobs: list[Job]) -> list[OutcomeRecord | None]:
    with transaction(res.sessions) as session:
        return [repo.get_outcome(session, j.tenant_id, j.job_id) for j in jobs]


def _run_task(job: Job) -> dict[str, Any]:
    with transaction(tasks.get_resources().sessions) as session:
        record = repo.get_job(session, job.tenant_id, job.job_id)
        assert record is not None
        body = job_body(record)
    # The fleet's app, whose broker the wake messages go to (not Celery's default app).
    return celery_app.tasks[ANSWER_TASK].apply(args=[body]).get()


def test_the_task_runs_the_threads_waiting_jobs_in_order_and_sends_nothing(
    resources: Resources, corpus_tenant: str
) -> None:
    jobs = thread_line(resources, corpus_tenant, 4, TORQUE_Q)

    result = _run_task(jobs[0])

    assert result["status"] == "answered" and result["job_id"] == jobs[0].job_id
    outcomes = _outcomes(resources, jobs)
    assert all(o is not None and o.status == "answered" for o in outcomes), outcomes
    created = [o.created_at for o in outcomes if o is not None]
    assert created == sorted(created)  # in submission order
    with transaction(resources.sessions) as session:
        records = [repo.get_job(session, j.tenant_id, j.job_id) for j in jobs]
    for before, after in itertools.pairwise(records):
        assert before is not None and after is not None
        assert before.finished_at is not None and after.started_at is not None
        assert before.finished_at <= after.started_at  # one after the other, never overlapping
    assert queued(resources) == []  # nobody was woken through the queue
    # The copies the fleet still holds find their outcomes: nothing runs twice.
    again = _run_task(jobs[2])
    assert again["fresh"] is False
    assert _turns(resources, jobs[0]) == [j.question for j in jobs]  # once each, in order


def _turns(res: Resources, job: Job) -> list[str]:
    """The questions of the turns in the thread's checkpointed history, in order."""
    config: Any = {"configurable": {"thread_id": job.graph_thread_id}}
    return [t["question"] for t in res.graph.get_state(config).values.get("history") or []]


def test_once_the_soft_shutdown_began_the_next_job_goes_through_the_queue(
    resources: Resources, corpus_tenant: str
) -> None:
    jobs = thread_line(resources, corpus_tenant, 2, TORQUE_Q)
    shutdown.STOPPING.value = 1
    try:
        _run_task(jobs[0])
    finally:
        shutdown.STOPPING.value = 0

    assert [o is not None for o in _outcomes(resources, jobs)] == [True, False]
    assert queued(resources) == [jobs[1].job_id]


def test_a_next_job_deleted_meanwhile_is_not_registered_again_from_its_stale_row(
    resources: Resources, corpus_tenant: str
) -> None:
    from workers.celery.tasks import answer_job, parse_job

    [job] = thread_line(resources, corpus_tenant, 1, TORQUE_Q)
    with transaction(resources.sessions) as session:
        record = repo.get_job(session, job.tenant_id, job.job_id)
        assert record is not None
        body = job_body(record)
        session.delete(record)  # e.g. the thread was forgotten after the drain looked

    result = answer_job(parse_job(body), context_of(resources), registered_only=True)

    assert result.outcome is None
    with transaction(resources.sessions) as session:
        assert repo.get_job(session, job.tenant_id, job.job_id) is None


@pytest.mark.parametrize("resources", [{"thread_drain_s": 0.0}], indirect=True)
def test_with_no_drain_time_the_next_job_goes_through_the_queue(
    resources: Resources, corpus_tenant: str
) -> None:
    jobs = thread_line(resources, corpus_tenant, 3, TORQUE_Q)

    _run_task(jobs[0])

    assert [o is not None for o in _outcomes(resources, jobs)] == [True, False, False]
    assert queued(resources) == [jobs[1].job_id]


def test_a_job_behind_an_unregistered_earlier_one_is_not_run_but_woken(
    resources: Resources, corpus_tenant: str
) -> None:
    # Job 1 is in the thread's Redis line (submitted) but no worker has registered it yet.
    jobs = thread_line(resources, corpus_tenant, 3, TORQUE_Q, register={0, 2})

    _run_task(jobs[0])

    assert [o is not None for o in _outcomes(resources, jobs)] == [True, False, False]
    assert queued(resources) == [jobs[2].job_id]  # it will wait its turn off the queue
