"""Deleting data: `crag forget` (a thread, or every thread of an end user) and the
retention sweep, proved by looking at every place data lives: Postgres, Redis and
Elasticsearch's caches (real services; the runner in-process with a scripted model)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from corpus import index_name, ingest_paths
from pipeline.deps import Models
from tests.conftest import forget_tenant
from tests.integration.graph_helpers import torque_model
from workers.cli.main import app as cli
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.progress import progress_key
from workers.core.runner import answer_job
from workers.core.tenants import ensure_tenant
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.resources import Resources, psycopg_url

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).parents[1] / "data" / "corpus"
TORQUE_Q = "What torque does the rotor shaft fastener need?"


@pytest.fixture(scope="module")
def res(settings: Any, migrated_db: str) -> Iterator[Resources]:
    resources = Resources.create(settings, models=Models.single(torque_model()))
    yield resources
    resources.close()


@pytest.fixture
def tenant(res: Resources, es: Any, settings: Any) -> Iterator[str]:
    tenant_id = f"t-del-{uuid.uuid4().hex[:8]}"
    ingest_paths(es, tenant_id, [CORPUS], index_prefix=settings.index_prefix)
    ensure_tenant(res.sessions, tenant_id, allow_hosts=["127.0.0.1"])
    yield tenant_id
    es.indices.delete(index=index_name(tenant_id, settings.index_prefix), ignore_unavailable=True)
    forget_tenant(settings, tenant_id)


def run(res: Resources, tenant: str, thread: str, subject: str | None = None) -> str:
    job = new_job(
        tenant, thread, TORQUE_Q, subject_id=subject, webhook_url="http://127.0.0.1:9/hook"
    )
    result = answer_job(job, context_of(res))
    assert result.outcome is not None
    with transaction(res.sessions) as session:
        outcome = repo.get_outcome(session, tenant, job.job_id)
        assert outcome is not None
        repo.record_attempt(session, outcome, "http://127.0.0.1:9/hook", 1, 500, "HTTP 500")
        repo.record_egress(session, job, "search.example", "rotor torque")
        repo.add_dead_letter(session, "webhook", "gave up", {}, tenant, job.job_id)
    res.redis.set(f"crag:wake:{tenant}:{thread}:{job.job_id}", 1, ex=60)
    return job.job_id


TABLES_BY_THREAD = ("jobs", "threads", "egress_records")
TABLES_BY_JOB = ("outcomes", "webhook_attempts", "dead_letters")
CHECKPOINTS = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def stored(settings: Any, tenant: str, thread: str, job_ids: list[str]) -> dict[str, int]:
    """Rows left anywhere in Postgres for a thread and its jobs."""
    counts = {}
    with psycopg.connect(psycopg_url(settings.database_url)) as conn:
        for table in TABLES_BY_THREAD:
            counts[table] = conn.execute(
                f"SELECT count(*) FROM {table} WHERE tenant_id = %s AND thread_id = %s",
                (tenant, thread),
            ).fetchone()[0]
        for table in TABLES_BY_JOB:
            counts[table] = conn.execute(
                f"SELECT count(*) FROM {table} WHERE tenant_id = %s AND job_id = ANY(%s)",
                (tenant, job_ids),
            ).fetchone()[0]
        for table in CHECKPOINTS:
            counts[table] = conn.execute(
                f"SELECT count(*) FROM {table} WHERE thread_id = %s", (f"{tenant}:{thread}",)
            ).fetchone()[0]
    return counts


def redis_keys(res: Resources, tenant: str, thread: str) -> list[bytes]:
    return list(res.redis.scan_iter(match=f"*{tenant}:{thread}*"))


def test_forget_a_subject_deletes_everything_of_their_threads_and_nothing_else(
    res: Resources, tenant: str, settings: Any, es: Any
) -> None:
    mine, other = f"th-{tenant}-mine", f"th-{tenant}-other"
    my_jobs = [run(res, tenant, mine, "user-17") for _ in range(2)]
    other_jobs = [run(res, tenant, other, "user-99")]
    res.redis.set(f"crag:lock:{tenant}:{mine}", "stale", ex=60)
    refused = new_job(tenant, f"{mine}-refused", TORQUE_Q, subject_id="user-17")
    with transaction(res.sessions) as session:  # refused at intake: only a dead letter
        repo.add_dead_letter(
            session, "job", "bad signature", refused.model_dump(mode="json"), tenant, "r-1"
        )
    assert all(stored(settings, tenant, mine, my_jobs).values())  # control: data exists
    streams = {j: progress_key(tenant, j) for j in (*my_jobs, *other_jobs)}
    assert all(res.redis.exists(key) for key in streams.values())  # their progress events
    index = index_name(tenant, settings.index_prefix)
    es.search(index=index, size=0, request_cache=True, query={"match": {"text": "torque"}})
    cache = es.indices.stats(index=index, metric="request_cache")
    assert cache["_all"]["total"]["request_cache"]["memory_size_in_bytes"] > 0

    result = CliRunner().invoke(cli, ["forget", "--tenant", tenant, "--subject", "user-17"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["threads"] == [mine, f"{mine}-refused"] and report["deleted"]["jobs"] == 2
    assert report["deleted"]["dead_letters"] == 3  # two delivery letters and the refused job

    assert stored(settings, tenant, mine, my_jobs) == dict.fromkeys(
        (*TABLES_BY_THREAD, *TABLES_BY_JOB, *CHECKPOINTS), 0
    )
    assert redis_keys(res, tenant, mine) == []
    assert not any(res.redis.exists(streams[j]) for j in my_jobs)
    assert all(res.redis.exists(streams[j]) for j in other_jobs)
    cache = es.indices.stats(index=index, metric="request_cache")
    assert cache["_all"]["total"]["request_cache"]["memory_size_in_bytes"] == 0
    assert all(stored(settings, tenant, other, other_jobs).values())  # another user's kept
    assert redis_keys(res, tenant, other)


def test_forget_refuses_a_busy_thread_unless_forced(res: Resources, tenant: str) -> None:
    thread = f"th-{tenant}-busy"
    with transaction(res.sessions) as session:
        repo.claim_thread(session, new_job(tenant, thread, TORQUE_Q))
        repo.register_job(session, new_job(tenant, thread, TORQUE_Q))  # queued, not run
    refused = CliRunner().invoke(cli, ["forget", "--tenant", tenant, "--thread", thread])
    assert refused.exit_code == 2 and "still queued or running" in refused.output
    forced = CliRunner().invoke(cli, ["forget", "--tenant", tenant, "--thread", thread, "--force"])
    assert forced.exit_code == 0 and json.loads(forced.output)["deleted"]["jobs"] == 1


def test_retention_sweep_deletes_idle_threads_past_the_tenants_period(
    res: Resources, tenant: str, settings: Any
) -> None:
    old, fresh = f"th-{tenant}-old", f"th-{tenant}-fresh"
    old_jobs, fresh_jobs = [run(res, tenant, old)], [run(res, tenant, fresh)]
    # A producer's clock says nothing about activity: only when jobs ended counts.
    with transaction(res.sessions) as session:
        for job_id in fresh_jobs:
            job = repo.get_job(session, tenant, job_id)
            assert job is not None
            job.submitted_at = job.submitted_at - timedelta(days=30)
    with transaction(res.sessions) as session:
        row = repo.get_tenant(session, tenant)
        assert row is not None
        row.retention_days = 7
        for job_id in old_jobs:
            job = repo.get_job(session, tenant, job_id)
            assert job is not None
            job.submitted_at = job.submitted_at - timedelta(days=8)
            job.finished_at = job.submitted_at

    result = CliRunner().invoke(cli, ["retention", "sweep", "--tenant", tenant])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)[tenant]
    assert report["jobs"] == 1 and report["checkpoints"] > 0
    assert not any(stored(settings, tenant, old, old_jobs).values())
    assert all(stored(settings, tenant, fresh, fresh_jobs).values())
