"""The fencing trigger, called directly on the real Postgres checkpoints table.

A checkpoint carrying an older fence than its thread's current one is refused in the same
statement as the write; the current fence, and a checkpoint without one (written outside
the fleet), pass. Installing the trigger again changes nothing.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest

from workers.contracts.jobs import new_job
from workers.core.tenants import ensure_tenant
from workers.db import fencing
from workers.db import repository as repo
from workers.db.engine import make_engine, make_sessionmaker, transaction
from workers.runtime.resources import psycopg_url

pytestmark = pytest.mark.integration


def _write(conn: psycopg.Connection[Any], thread: str, metadata: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata)"
        " VALUES (%s, '', %s, '{}'::jsonb, %s::jsonb)",
        (thread, uuid.uuid4().hex, json.dumps(metadata)),
    )


def test_a_checkpoint_with_an_older_fence_is_refused_by_postgres(
    settings: Any, migrated_db: str, corpus_tenant: str
) -> None:
    engine = make_engine(settings.database_url)
    sessions = make_sessionmaker(engine)
    ensure_tenant(sessions, corpus_tenant)
    job = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", "q")
    with transaction(sessions) as session:
        old = repo.claim_fence(session, job)
    with transaction(sessions) as session:
        new = repo.claim_fence(session, job)
    engine.dispose()
    assert new == old + 1
    with psycopg.connect(psycopg_url(settings.database_url), autocommit=True) as conn:
        fencing.install(conn)  # again: idempotent
        _write(conn, job.graph_thread_id, {"crag_fence": new})
        _write(conn, job.graph_thread_id, {"source": "outside the fleet"})
        with pytest.raises(psycopg.errors.RaiseException) as refused:
            _write(conn, job.graph_thread_id, {"crag_fence": old})
        assert fencing.is_stale_fence(refused.value)
        assert f"{old} < {new}" in str(refused.value)
        rows = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s", (job.graph_thread_id,)
        ).fetchone()
        assert rows == (2,)
        conn.execute("DELETE FROM checkpoints WHERE thread_id = %s", (job.graph_thread_id,))
