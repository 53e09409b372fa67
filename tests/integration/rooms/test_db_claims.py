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

from workers.contracts.jobs import new_job
from workers.core.tenants import ensure_tenant
from workers.db import repository as repo
from workers.db.engine import make_engine, make_sessionmaker, transaction

pytestmark = pytest.mark.integration


def test_a_thread_claimed_meanwhile_by_a_transaction_we_waited_on_returns_its_owner(
    settings: Any, migrated_db: str, corpus_tenant: str
) -> None:
    sessions = make_sessionmaker(make_engine(settings.database_url))
    ensure_tenant(sessions, corpus_tenant)
    thread = f"th-claim-{uuid.uuid4().hex[:8]}"
    first, second = new_job(corpus_tenant, thread, "q1"), new_job(corpus_tenant, thread, "q2")
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


def _claim_in_own_transaction(sessions: Any, job: Any) -> str:
    with transaction(sessions) as session:
        return repo.claim_thread(session, job)
