"""Claiming a thread and registering a job, on the real Postgres, under concurrent claims.

``claim_thread`` is one statement (an insert in a CTE, read back by the outer select), so
its read has the statement's snapshot: when another transaction claims the same thread and
commits while this insert waits on it, that snapshot does not show the row. The owner must
still come back (a CI run answered such a job ``internal_error``: two jobs on one new
thread, taken by two worker slots at once).
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from sqlalchemy import update

from workers.contracts.jobs import OutcomeBody, new_job
from workers.core.tenants import ensure_tenant
from workers.db import repository as repo
from workers.db.engine import make_engine, make_sessionmaker, transaction
from workers.db.models import JobRecord

pytestmark = pytest.mark.integration


def test_a_thread_claimed_meanwhile_by_a_transaction_we_waited_on_returns_its_owner(
    settings: Any, migrated_db: str, corpus_tenant: str
) -> None:
    sessions = make_sessionmaker(make_engine(settings.database_url))
    ensure_tenant(sessions, corpus_tenant)
    other = f"t-claim-{uuid.uuid4().hex[:8]}"
    ensure_tenant(sessions, other)
    thread = f"th-claim-{uuid.uuid4().hex[:8]}"
    # Another tenant's job on the same thread id: it must learn the thread is not its own.
    first, second = new_job(corpus_tenant, thread, "q1"), new_job(other, thread, "q2")
    owners: list[str] = []

    with sessions() as holder, holder.begin():
        assert repo.claim_thread(holder, first) == corpus_tenant  # inserted, not committed
        waiter = threading.Thread(
            target=lambda: owners.append(_claim_in_own_transaction(sessions, second))
        )
        waiter.start()
        waiter.join(timeout=1.0)
        assert waiter.is_alive(), "control: the second claim should wait on the first"
    waiter.join(timeout=10)  # the first committed as its block ended

    assert owners == [corpus_tenant]


def test_registering_returns_the_row_new_or_already_there(
    settings: Any, migrated_db: str, corpus_tenant: str
) -> None:
    sessions = make_sessionmaker(make_engine(settings.database_url))
    ensure_tenant(sessions, corpus_tenant)
    job = new_job(corpus_tenant, f"th-reg-{uuid.uuid4().hex[:8]}", "q")
    with transaction(sessions) as session:
        fresh = repo.register_job(session, job)
        assert (fresh.job_id, fresh.status, fresh.attempts) == (job.job_id, "queued", 0)
    later = job.model_copy(update={"submitted_at": job.submitted_at.replace(year=2030)})
    with transaction(sessions) as session:
        again = repo.register_job(session, later)  # a re-sent copy keeps its place in line
        assert again.submitted_at == fresh.submitted_at
        started = repo.start_job(session, job)
        assert (started.status, started.attempts) == ("running", 1)
        assert repo.start_job(session, job).attempts == 2


def test_a_job_that_ended_meanwhile_is_not_started_again_and_its_row_is_mended(
    settings: Any, migrated_db: str, corpus_tenant: str
) -> None:
    """An apology stored by a late copy while a run held the lock must end the job for good:
    a job left ``running`` with its outcome stored would stay first in its thread's line."""
    sessions = make_sessionmaker(make_engine(settings.database_url))
    ensure_tenant(sessions, corpus_tenant)
    job = new_job(corpus_tenant, f"th-end-{uuid.uuid4().hex[:8]}", "q")
    body = OutcomeBody(
        job_id=job.job_id, tenant_id=job.tenant_id, thread_id=job.thread_id, status="failed"
    )
    with transaction(sessions) as session:
        repo.register_job(session, job)
        repo.save_outcome(session, body, f"msg_{job.job_id}", has_webhook=False)
    with transaction(sessions) as session:
        assert repo.start_job(session, job).status == "failed"  # not made running again
        assert repo.next_in_line(session, job.tenant_id, job.thread_id) is None
        # A row left unfinished by an older run is mended when its outcome is stored again.
        session.execute(
            update(JobRecord)
            .where(JobRecord.tenant_id == job.tenant_id, JobRecord.job_id == job.job_id)
            .values(status="running")
        )
        record, fresh = repo.save_outcome(
            session, body.model_copy(update={"status": "answered"}), "x", has_webhook=False
        )
        assert (record.status, fresh) == ("failed", False)  # the first outcome stands
        assert repo.next_in_line(session, job.tenant_id, job.thread_id) is None


def _claim_in_own_transaction(sessions: Any, job: Any) -> str:
    with transaction(sessions) as session:
        return repo.claim_thread(session, job)
