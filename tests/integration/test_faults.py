"""Fault tests: the fleet loses nothing and delivers nothing twice when its services fail.

Real worker processes, real Redis, Postgres and Elasticsearch; the services a test breaks
are private instances (:mod:`tests.integration.harness`) or addresses where nothing listens.
The model is a scripted OpenAI-compatible server. (Worker killed mid-graph and webhook
receivers that fail are in ``test_worker.py``.)
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pipeline.graph import build_graph
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.bursts import (
    FAULTS,
    fleet_env,
    pool_children,
    run_burst,
    scripted_model,
    submit,
)
from tests.integration.graph_helpers import TORQUE_ANSWER, torque_model
from tests.integration.harness import (
    ROOT,
    ScratchPostgres,
    ScratchRedis,
    refused_port,
    wait_until,
    worker_fleet,
)
from workers.cli.demo_stand_ins import WebhookReceiver
from workers.cli.main import tenant_keys
from workers.db import repository as repo
from workers.db.engine import make_engine, make_sessionmaker, transaction
from workers.db.models import JobRecord, Tenant
from workers.runtime.checkpointing import serde_from_settings
from workers.runtime.resources import make_checkpointer
from workers.settings import Settings

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"

GATES: dict[str, tuple[threading.Event, threading.Event]] = {}
"""Questions marked GATE-<id> stop in the generator until the test opens the gate."""


def generator(user: str) -> dict[str, Any]:
    for marker, (entered, release) in GATES.items():
        if f"GATE-{marker}" in user and not release.is_set():
            entered.set()
            release.wait(60)
    if "SLOW" in user:
        time.sleep(1.0)
    if "JITTER" in user:
        time.sleep(random.uniform(0.0, 0.15))
    return TORQUE_ANSWER


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(torque_model(generator)) as server:
        yield server


def deliveries_once(sink: WebhookReceiver, job_ids: list[str], timeout_s: float) -> list[Any]:
    """Wait for every job's outcome; then, after a grace period, assert none came twice."""
    bodies = []
    for job_id in job_ids:
        got = sink.wait_for(job_id, timeout_s=timeout_s)
        assert got, f"job {job_id} was never answered"
        bodies.append(got[0].body)
    time.sleep(2)  # a duplicate would arrive meanwhile
    counts = Counter(d.body["job_id"] for d in sink.deliveries)
    assert all(counts[j] == 1 for j in job_ids), counts
    return bodies


def log_text(log_dir: Path) -> str:
    return "\n".join(p.read_text() for p in log_dir.glob("worker-*.log"))


def test_redis_restarted_while_jobs_wait(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    secret = keys.webhook_secret
    redis = ScratchRedis(tmp_path)
    redis.start()
    env = fleet_env(llm, redis_url=redis.url, visibility_timeout_s="30")
    try:
        with worker_fleet(env, tmp_path), WebhookReceiver(secret) as sink:
            jobs = [
                submit(env, keys, sink, f"th-{uuid.uuid4().hex[:8]}", f"SLOW {TORQUE_Q}")
                for _ in range(4)
            ]
            time.sleep(0.5)  # the first job runs, three wait in the queue
            redis.stop()
            time.sleep(1.0)
            redis.start()
            bodies = deliveries_once(sink, [j.job_id for j in jobs], timeout_s=90)
    finally:
        redis.stop()
    assert {b["status"] for b in bodies} == {"answered"}


def test_postgres_stopped_during_a_run_fails_fast_and_completes_later(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path
) -> None:
    pg = ScratchPostgres()
    pg.start()
    try:
        env = fleet_env(llm, database_url=pg.url, job_max_retries="20")
        subprocess.run(
            [sys.executable, "-m", "workers.cli", "db", "upgrade"],
            env=env,
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        sessions = make_sessionmaker(make_engine(pg.url, pool_size=1))
        keys = tenant_keys(corpus_tenant)  # in the suite's database: copy it over
        secret = keys.webhook_secret
        with transaction(sessions) as session:
            repo.add_tenant(
                session,
                Tenant(
                    tenant_id=corpus_tenant,
                    name=corpus_tenant,
                    webhook_secret=secret,
                    submission_key=keys.submission_key,
                    webhook_allowlist=["127.0.0.1"],
                ),
            )
        marker = uuid.uuid4().hex[:8]
        entered, release = GATES[marker] = threading.Event(), threading.Event()
        with worker_fleet(env, tmp_path) as _, WebhookReceiver(secret) as sink:
            job = submit(env, keys, sink, f"th-{marker}", f"GATE-{marker} {TORQUE_Q}")
            assert entered.wait(60), "the run never reached the generator"
            # Checkpoints are written in the background: wait until the one before
            # generate is durable, then cut Postgres, so the next write fails.
            saver, pool = make_checkpointer(
                pg.url, max_size=1, serde=serde_from_settings(Settings())
            )
            config = {"configurable": {"thread_id": f"{corpus_tenant}:th-{marker}"}}
            with closing(pool):
                wait_until(
                    lambda: build_graph(saver).get_state(config).next == ("generate",),
                    "the checkpoint before generate",
                )
            pg.stop()
            release.set()
            wait_until(
                lambda: "transient error, retrying" in log_text(tmp_path),
                "a retryable failure in the worker log",
                timeout_s=30,
            )
            time.sleep(2)
            pg.start()
            [body] = deliveries_once(sink, [job.job_id], timeout_s=90)
        assert body["status"] == "answered"
        assert body["resumed"] is True  # from the checkpoint before the failed write
        with sessions() as session:
            record = session.get(JobRecord, (corpus_tenant, job.job_id))
            assert record is not None and record.status == "answered"
    finally:
        pg.remove()


def test_elasticsearch_down_abstains_with_the_reason_and_no_crash_loop(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path, settings: Settings
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    secret = keys.webhook_secret
    with refused_port() as es_port:
        env = fleet_env(llm, elasticsearch_url=f"http://127.0.0.1:{es_port}")
        with worker_fleet(env, tmp_path) as [proc], WebhookReceiver(secret) as sink:
            job = submit(env, keys, sink, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
            [body] = deliveries_once(sink, [job.job_id], timeout_s=60)
            assert proc.poll() is None  # the worker is still serving
    assert body["status"] == "abstained"
    assert body["reason"] == "retrieval_unavailable", body
    assert "count on index" in body["detail"]  # the error itself, for the operator
    sessions = make_sessionmaker(make_engine(settings.database_url, pool_size=1))
    with sessions() as session:
        assert session.get(JobRecord, (corpus_tenant, job.job_id)).attempts == 1


@pytest.mark.parametrize("fallback_up", [True, False])
def test_primary_model_down_fallback_serves_or_all_down_apologises_in_time(
    llm: FakeOpenAIServer,
    corpus_tenant: str,
    tmp_path: Path,
    settings: Settings,
    fallback_up: bool,
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    secret = keys.webhook_secret
    with refused_port() as primary, refused_port() as second:
        fallback = llm.base_url if fallback_up else f"http://127.0.0.1:{second}/v1"
        env = fleet_env(
            llm,
            llm_base_url=f"http://127.0.0.1:{primary}/v1",
            llm_fallbacks=json.dumps([{"base_url": fallback, "model": "scripted"}]),
            llm_timeout_s="2",
            job_deadline_s="30",
        )
        with worker_fleet(env, tmp_path), WebhookReceiver(secret) as sink:
            job = submit(env, keys, sink, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
            [body] = deliveries_once(sink, [job.job_id], timeout_s=60)
    failed_models = {f["error"].split(":")[0] for f in body["model_failures"]}
    assert failed_models, body  # every hop is recorded with its error class
    if fallback_up:
        assert body["status"] == "answered"
    else:
        assert (body["status"], body["reason"], body["handoff"]) == (
            "failed",
            "model_unavailable",
            True,
        )
        assert body["latency_ms"] < 30_000


def test_fifty_jobs_on_five_threads_keep_order_across_three_workers(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path, settings: Settings
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    secret = keys.webhook_secret
    env = fleet_env(llm)
    threads = [f"th-order-{uuid.uuid4().hex[:6]}" for _ in range(5)]
    with worker_fleet(env, tmp_path, workers=3), WebhookReceiver(secret) as sink:
        jobs = [
            submit(env, keys, sink, threads[n % 5], f"JITTER {TORQUE_Q} (#{n})") for n in range(50)
        ]
        deliveries_once(sink, [j.job_id for j in jobs], timeout_s=240)
    sessions = make_sessionmaker(make_engine(settings.database_url, pool_size=1))
    with sessions() as session:
        rows = session.scalars(
            select(JobRecord).where(
                JobRecord.tenant_id == corpus_tenant, JobRecord.thread_id.in_(threads)
            )
        ).all()
    submitted = {j.job_id: n for n, j in enumerate(jobs)}
    for thread in threads:
        runs = sorted((r for r in rows if r.thread_id == thread), key=lambda r: submitted[r.job_id])
        assert len(runs) == 10
        assert [(r.status, r.attempts) for r in runs] == [("answered", 1)] * 10
        for before, after in itertools.pairwise(runs):
            # In submission order, and each run starts after the one before it ended.
            assert before.finished_at <= after.started_at, (thread, before.job_id, after.job_id)
    overlapping = sorted((r.started_at, r.finished_at) for r in rows)
    assert any(b[0] < a[1] for a, b in itertools.pairwise(overlapping)), (
        "control: runs on different threads never overlapped, so the check proves nothing"
    )


@pytest.mark.parametrize("finishes", [True, False])
def test_sigterm_lets_the_running_job_finish_or_hands_it_back(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path, settings: Settings, finishes: bool
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    secret = keys.webhook_secret
    grace = 4 if not finishes else 30
    env = fleet_env(llm, shutdown_grace_s=str(grace))
    marker = uuid.uuid4().hex[:8]
    entered, release = GATES[marker] = threading.Event(), threading.Event()
    with WebhookReceiver(secret) as sink:
        with worker_fleet(env, tmp_path) as [old]:
            job = submit(env, keys, sink, f"th-{marker}", f"GATE-{marker} {TORQUE_Q}")
            assert entered.wait(60), "the run never reached the generator"
            old.terminate()  # SIGTERM, as at a rolling update
            stopping = time.monotonic()
            if finishes:
                time.sleep(1)
                release.set()  # the job ends 1 s into the 30 s grace
            old.wait(timeout=60)
            stopped_after = time.monotonic() - stopping
            release.set()
        with worker_fleet(env, tmp_path):  # the replacement worker
            [body] = deliveries_once(sink, [job.job_id], timeout_s=60)
    if finishes:
        # The worker exits once its job has ended, not when the grace period has.
        assert stopped_after < grace / 2, stopped_after
    assert body["status"] == "answered"
    assert body["resumed"] is (not finishes)  # handed back: resumed from its checkpoint
    graders = [user for role, user in llm.model.calls if marker in user and role == "grader"]
    # The nodes before the hand-back did not run again: every chunk was graded once.
    assert len(graders) == len(set(graders)) > 0


def wait_for_checkpoint(database_url: str, thread_id: str, node: str) -> None:
    """Wait until the thread's latest checkpoint is the one before ``node`` (checkpoints
    are written in the background, so a run can enter a node before the one before it is
    durable)."""
    saver, pool = make_checkpointer(database_url, max_size=1, serde=serde_from_settings(Settings()))
    config = {"configurable": {"thread_id": thread_id}}
    with closing(pool):
        wait_until(
            lambda: build_graph(saver).get_state(config).next == (node,),
            f"the checkpoint before {node}",
        )


@pytest.mark.parametrize("when", ["idle", "mid-job"])
def test_a_killed_pool_process_is_replaced_and_its_job_answered_once(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path, settings: Settings, when: str
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    env = fleet_env(llm)
    marker = uuid.uuid4().hex[:8]
    entered, release = GATES[marker] = threading.Event(), threading.Event()
    with worker_fleet(env, tmp_path) as [worker], WebhookReceiver(keys.webhook_secret) as sink:
        [child] = pool_children(worker.pid)
        if when == "idle":
            os.kill(child, 9)
            job = submit(env, keys, sink, f"th-{marker}", TORQUE_Q)
        else:
            job = submit(env, keys, sink, f"th-{marker}", f"GATE-{marker} {TORQUE_Q}")
            assert entered.wait(60), "the run never reached the generator"
            wait_for_checkpoint(settings.database_url, f"{corpus_tenant}:th-{marker}", "generate")
            os.kill(child, 9)
            release.set()
        killed = time.monotonic()
        [body] = deliveries_once(sink, [job.job_id], timeout_s=60)
        took = time.monotonic() - killed
        assert worker.poll() is None
        [replacement] = pool_children(worker.pid)
        assert replacement != child
    release.set()
    assert body["status"] == "answered"
    assert body["resumed"] is (when == "mid-job")  # from its checkpoint, not from scratch
    # The replacement starts in seconds, and a lock the killed process held is broken as
    # soon as its heartbeat lapses, not after the lock's TTL (60 s).
    assert took < 30, took
    sessions = make_sessionmaker(make_engine(settings.database_url, pool_size=1))
    with sessions() as session:
        record = session.get(JobRecord, (corpus_tenant, job.job_id))
        assert record is not None and record.status == "answered"
    saver, pool = make_checkpointer(
        settings.database_url, max_size=1, serde=serde_from_settings(settings)
    )
    with closing(pool):
        state = build_graph(saver).get_state(
            {"configurable": {"thread_id": f"{corpus_tenant}:th-{marker}"}}
        )
    assert len(state.values["history"]) == 1  # one turn for one job


def thread_state(database_url: str, thread_id: str) -> dict[str, Any]:
    """The latest checkpointed state of a graph thread (``<tenant>:<thread>``)."""
    saver, pool = make_checkpointer(database_url, max_size=1, serde=serde_from_settings(Settings()))
    with closing(pool):
        return dict(build_graph(saver).get_state({"configurable": {"thread_id": thread_id}}).values)


def test_a_run_that_lost_its_lock_stops_before_its_next_write_and_its_retry_resumes(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path, settings: Settings, redis_client: Any
) -> None:
    from workers.runtime.lock import lock_name

    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    env = fleet_env(llm, lock_ttl_s="3")
    marker = uuid.uuid4().hex[:8]
    thread = f"th-{marker}"
    entered, release = GATES[marker] = threading.Event(), threading.Event()
    with worker_fleet(env, tmp_path), WebhookReceiver(keys.webhook_secret) as sink:
        job = submit(env, keys, sink, thread, f"GATE-{marker} {TORQUE_Q}")
        assert entered.wait(60), "the run never reached the generator"
        wait_for_checkpoint(settings.database_url, f"{corpus_tenant}:{thread}", "generate")
        assert redis_client.delete(lock_name(corpus_tenant, thread)) == 1  # the lock is lost
        time.sleep(1.5)  # the watchdog notices within a renewal period (TTL / 3)
        release.set()
        [body] = deliveries_once(sink, [job.job_id], timeout_s=60)
        log = log_text(tmp_path)
    assert body["status"] == "answered"
    assert body["resumed"] is True  # the retry resumed the same turn at generate
    assert "lost the lock" in log
    history = thread_state(settings.database_url, f"{corpus_tenant}:{thread}")["history"]
    assert [turn["question"] for turn in history] == [f"GATE-{marker} {TORQUE_Q}"]
    assert body["path"].count("finalize") == 1


@pytest.fixture
def burst_tenant(es: Any, settings: Settings) -> Iterator[Any]:
    """A tenant of its own for a burst (the Elasticsearch fault closes its index)."""
    from corpus import index_name, ingest_paths
    from tests.conftest import DATA, forget_tenant

    tenant = f"t-burst-{uuid.uuid4().hex[:8]}"
    ingest_paths(es, tenant, [DATA / "corpus"], index_prefix=settings.index_prefix)
    yield tenant_keys(tenant, allow_hosts=["127.0.0.1"])
    es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)
    forget_tenant(settings, tenant)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_burst_loses_doubles_and_reorders_nothing_when(
    fault: str, burst_tenant: Any, tmp_path: Path
) -> None:
    with scripted_model() as llm:
        report = run_burst(fault, burst_tenant, llm, tmp_path)
    assert report.struck, f"the {fault} fault never happened: {report}"
    counts = (report.lost, report.duplicates, report.duplicated_turns, report.order_violations)
    assert counts == (0, 0, 0, 0), report
    assert report.outcomes == report.delivered == report.submitted == 20, report
    assert report.missing_turns == 0, report
    # Drained in seconds once the service is back: a lock its holder could not release no
    # longer stalls a thread for the lock's TTL (60 s). (The figure itself: bench.faults.)
    assert report.drain_s < 30, report
    if fault == "drain-kill":  # the job killed mid-run was run again (or resumed), once
        with make_sessionmaker(make_engine(Settings().database_url, pool_size=1))() as s:
            killed = s.get(JobRecord, (burst_tenant.tenant_id, report.struck_job))
            assert killed is not None and killed.attempts >= 2, (killed, report)


def test_a_live_worker_keeps_its_job_past_the_visibility_timeout_and_a_lost_host_gives_it_up(
    llm: FakeOpenAIServer, corpus_tenant: str, tmp_path: Path
) -> None:
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    env = fleet_env(llm, visibility_timeout_s="10")
    marker = uuid.uuid4().hex[:8]
    entered, release = GATES[marker] = threading.Event(), threading.Event()
    logs_b = tmp_path / "b"
    logs_b.mkdir()
    with WebhookReceiver(keys.webhook_secret) as sink, worker_fleet(env, tmp_path) as [host_a]:
        job = submit(env, keys, sink, f"th-{marker}", f"GATE-{marker} {TORQUE_Q}")
        assert entered.wait(60), "the run never reached the generator"
        with worker_fleet(env, logs_b):
            # Twice the visibility timeout plus a restore interval: the lease is renewed,
            # so the job is not handed to the idle worker while A still runs it.
            time.sleep(2 * 10 + 10 + 2)
            assert "Task crag.answer_question[" not in log_text(logs_b)
            # The whole host A is lost: its pool process and its main process.
            subprocess.run(["pkill", "-KILL", "-P", str(host_a.pid)], check=False)
            host_a.kill()
            lost_at = time.monotonic()
            release.set()  # for the run that resumes on B
            [body] = deliveries_once(sink, [job.job_id], timeout_s=90)
            took = time.monotonic() - lost_at
        release.set()
    assert body["status"] == "answered" and body["resumed"] is True
    # Picked up within the visibility timeout plus a restore interval (and the heartbeat
    # of the dead holder's lock), not after an hour.
    assert took < 10 + 10 + 15, took
