"""The fleet end to end: a real Celery worker process over the real Redis, Postgres and
Elasticsearch; the model is a scripted OpenAI-compatible server, the webhook consumer a
local receiver that verifies signatures."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from tests.conftest import forget_tenant
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.graph_helpers import TORQUE_ANSWER, torque_model
from tests.integration.harness import worker_fleet
from workers.celery.app import app as celery_app
from workers.celery.broker import envelope
from workers.cli.demo_stand_ins import WebhookReceiver
from workers.cli.main import app as cli
from workers.cli.main import tenant_keys
from workers.client.intake import submit_job, submit_question
from workers.client.waiting import wait_for_outcome
from workers.contracts.jobs import new_job, webhook_id
from workers.contracts.names import ANSWER_TASK
from workers.contracts.signing import sign_job
from workers.core.progress import read_events
from workers.db.engine import make_engine, make_sessionmaker
from workers.db.models import DeadLetter, JobRecord, OutcomeRecord, WebhookAttempt
from workers.runtime.checkpointing import key_ring_from_settings
from workers.runtime.lock import alive_key, lock_name
from workers.settings import Settings

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"


KILL_SWITCHES: dict[str, threading.Event] = {}
"""Markers of questions whose first generation blocks until the test kills the worker."""


def generator(user: str) -> dict[str, Any]:
    killme = re.search(r"KILLME-(\w+)", user)
    if killme and not KILL_SWITCHES[killme.group(1)].is_set():
        KILL_SWITCHES[killme.group(1)].set()
        time.sleep(30)  # the worker process is killed meanwhile
    if "VERYSLOW" in user:
        time.sleep(4)  # longer than the deadline test's deadline
    elif "SLOW" in user:
        time.sleep(1.5)  # long enough that overlapping runs would be visible
    return TORQUE_ANSWER


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(torque_model(generator)) as server:
        yield server


@pytest.fixture(scope="module")
def fleet(
    llm: FakeOpenAIServer,
    corpus_tenant: str,
    migrated_db: str,
    redis_client: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, Any]]:
    """A worker process (2 slots) on queues private to this test module."""
    suffix = uuid.uuid4().hex[:8]
    queue, deliveries = f"crag.questions.test-{suffix}", f"crag.deliveries.test-{suffix}"
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRAG_WEB_SEARCH")}
    env |= {
        "CRAG_LLM_BASE_URL": llm.base_url,
        "CRAG_QUEUE": queue,
        "CRAG_DELIVERY_QUEUE": deliveries,
        "CRAG_RETRY_BACKOFF_S": "1",
        "CRAG_WEBHOOK_MAX_ATTEMPTS": "3",
        "CRAG_THREAD_POLL_S": "1",
        "CRAG_LOCK_TTL_S": "3",
        "CRAG_JOB_MAX_RETRIES": "2",
        "CRAG_WEBHOOK_TIMEOUT_S": "2",
    }
    log_dir = tmp_path_factory.mktemp("worker")
    try:
        with (
            worker_fleet(env, log_dir, concurrency=2) as [proc],
            WebhookReceiver(keys.webhook_secret) as sink,
        ):
            yield {
                "key": keys.submission_key,
                "deliveries": deliveries,
                "queue": queue,
                "sink": sink,
                "tenant": corpus_tenant,
                "log_dir": log_dir,
                "pid": proc.pid,
            }
    finally:
        for key in redis_client.scan_iter(match=f"*test-{suffix}*"):
            redis_client.delete(key)


@pytest.fixture(scope="module")
def sessions(migrated_db: str) -> Any:
    return make_sessionmaker(make_engine(migrated_db, pool_size=1))


def submit(fleet: dict[str, Any], thread: str, question: str, **options: Any) -> Any:
    """Enqueue a question for the module's tenant, delivered to its webhook sink by default."""
    options.setdefault("webhook_url", fleet["sink"].url)
    return submit_question(
        celery_app, fleet["queue"], fleet["tenant"], thread, question, key=fleet["key"], **options
    )


@contextmanager
def thread_held(redis_client: Any, tenant: str, thread: str) -> Iterator[None]:
    """Hold a thread's lock as another live worker would, for the duration of the block.

    Its process keeps a heartbeat, so the lock is busy, not stale (see :mod:`workers.runtime.lock`).
    """
    process = f"test-holder-{uuid.uuid4().hex[:8]}"
    redis_client.set(alive_key(process), 1, px=120_000)
    lock = redis_client.lock(lock_name(tenant, thread), timeout=120)
    assert lock.acquire(blocking=False, token=f"other-job@{process}")
    try:
        yield
    finally:
        lock.release()
        redis_client.delete(alive_key(process))


def _eventually(fn: Any, timeout_s: float = 60) -> Any:
    deadline = time.monotonic() + timeout_s
    while (value := fn()) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    return value


def test_job_is_answered_and_delivered_signed(fleet: dict[str, Any], sessions: Any) -> None:
    job = submit(fleet, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
    [delivery] = fleet["sink"].wait_for(job.job_id)

    assert delivery.verified
    assert delivery.webhook_id == webhook_id(fleet["tenant"], job.job_id)
    body = delivery.body
    assert body["status"] == "answered" and body["route"] == "vectorstore"
    assert body["citations"][0]["locator"].endswith("rotor-maintenance.md")
    assert body["path"][-3:] == ["generate", "verify", "finalize"]
    assert len(body["trace_id"]) == 32 and body["model_calls"] >= 4
    shown = CliRunner().invoke(cli, ["outcome", job.job_id, "--tenant", fleet["tenant"]])
    assert json.loads(shown.output)["answer"] == body["answer"]


def test_same_job_id_runs_once_and_is_delivered_once(
    fleet: dict[str, Any], sessions: Any, llm: FakeOpenAIServer
) -> None:
    marker = uuid.uuid4().hex[:8]
    question = f"{TORQUE_Q} (ref {marker})"
    thread, job_id = f"th-{marker}", f"idem-{marker}"
    for _ in range(2):
        submit(fleet, thread, question, job_id=job_id)
    # The duplicate is handled within milliseconds; a second POST would arrive well
    # within this window.
    deliveries = fleet["sink"].wait_for(job_id, count=2, timeout_s=6)

    assert len(deliveries) == 1
    assert deliveries[0].webhook_id == webhook_id(fleet["tenant"], job_id)
    generated = [u for r, u in llm.model.calls if r == "generator" and marker in u]
    assert len(generated) == 1
    with sessions() as s:
        assert s.get(JobRecord, (fleet["tenant"], job_id)).attempts == 1


def test_jobs_on_one_thread_never_overlap(fleet: dict[str, Any], sessions: Any) -> None:
    def run_pair(threads: list[str]) -> list[tuple[Any, Any]]:
        jobs = [
            submit(
                fleet,
                t,
                f"SLOW {TORQUE_Q}",
            )
            for t in threads
        ]
        for job in jobs:
            assert fleet["sink"].wait_for(job.job_id, timeout_s=120), job.job_id
        with sessions() as s:
            rows = [s.get(JobRecord, (fleet["tenant"], j.job_id)) for j in jobs]
            return sorted((r.started_at, r.finished_at) for r in rows)

    # Control: on different threads the two worker slots do run at once, so the check
    # below could fail.
    (_, c_end), (d_start, _) = run_pair([f"th-{uuid.uuid4().hex[:8]}" for _ in range(2)])
    assert d_start < c_end, "the control pair did not run concurrently"

    shared = f"th-{uuid.uuid4().hex[:8]}"
    (_, a_end), (b_start, _) = run_pair([shared, shared])
    assert a_end <= b_start, "two runs on one thread overlapped"


def test_malformed_and_unknown_tenant_jobs_are_dead_lettered(
    fleet: dict[str, Any], sessions: Any
) -> None:
    marker = uuid.uuid4().hex[:8]
    bad = {
        "job_id": f"bad-{marker}",
        "tenant_id": "Not A Tenant!",
        "thread_id": "t",
        "question": "",
    }
    stranger = {
        "job_id": f"who-{marker}",
        "tenant_id": f"nobody-{marker}",
        "thread_id": "t",
        "question": "hello?",
    }
    for body in (bad, stranger, f"not an object {marker}"):
        celery_app.send_task(ANSWER_TASK, args=[body], queue=fleet["queue"])

    def letters() -> list[DeadLetter] | None:
        with sessions() as s:
            rows = s.scalars(select(DeadLetter).where(DeadLetter.kind == "job")).all()
            mine = [r for r in rows if marker in json.dumps(r.payload)]
            return mine if len(mine) == 3 else None

    rows = _eventually(letters)
    assert rows is not None, "not every bad job was dead-lettered"
    reasons = {r.job_id or r.payload: r.reason for r in rows}
    assert "tenant_id: String should match pattern" in reasons[f"bad-{marker}"]
    assert "question: String should have at least 1 character" in reasons[f"bad-{marker}"]
    assert reasons[f"who-{marker}"] == f"unknown tenant 'nobody-{marker}'"
    assert "must be a JSON object" in reasons[f"not an object {marker}"]

    listed = CliRunner().invoke(cli, ["dead-letters", "--json", "--limit", "200"])
    assert listed.exit_code == 0, listed.output
    shown = [json.loads(line) for line in listed.output.splitlines()]
    assert {"bad-" + marker, "who-" + marker} <= {d["job_id"] for d in shown}


def test_non_python_producer_message_format(fleet: dict[str, Any], redis_client: Any) -> None:
    """The Celery message documented in the README, pushed with a plain LPUSH."""
    job_id = f"raw-{uuid.uuid4().hex[:8]}"
    job = {
        "job_id": job_id,
        "tenant_id": fleet["tenant"],
        "thread_id": f"th-{job_id}",
        "question": TORQUE_Q,
        "webhook_url": fleet["sink"].url,
        "options": {"allow_web": False},
    }
    job = sign_job(job, fleet["key"])  # the documented scheme, as any producer would
    body = [[job], {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]
    message_id = str(uuid.uuid4())
    message = {
        "body": base64.b64encode(json.dumps(body).encode()).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py",
            "task": "crag.answer_question",
            "id": message_id,
            "root_id": message_id,
            "parent_id": None,
            "group": None,
            "retries": 0,
        },
        "properties": {
            "correlation_id": message_id,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": fleet["queue"]},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": message_id,
        },
    }
    redis_client.lpush(fleet["queue"], json.dumps(message))
    [delivery] = fleet["sink"].wait_for(job_id)
    assert delivery.verified and delivery.body["status"] == "answered"


@pytest.mark.parametrize(("replies", "delivered"), [([500, "hang", 204], True), ([500] * 9, False)])
def test_webhook_retries_then_delivers_once_or_dead_letters(
    fleet: dict[str, Any], sessions: Any, replies: list[int | str], delivered: bool
) -> None:
    secret = tenant_keys(fleet["tenant"]).webhook_secret
    with WebhookReceiver(secret, replies=replies, hang_s=5) as flaky:  # timeout is 2 s
        job = submit(fleet, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q, webhook_url=flaky.url)
        flaky.wait_for(job.job_id, count=3, timeout_s=90)

        def final_status() -> str | None:
            with sessions() as s:
                record = s.get(OutcomeRecord, (fleet["tenant"], job.job_id))
                done = record is not None and record.delivery_status in ("delivered", "dead")
                return record.delivery_status if done else None

        status = _eventually(final_status)
        time.sleep(2)  # a stray extra attempt would show up meanwhile
        attempts = flaky.wait_for(job.job_id, count=4, timeout_s=0)
    assert {a.webhook_id for a in attempts} == {webhook_id(fleet["tenant"], job.job_id)}
    assert len(attempts) == 3  # delivered on the third, or CRAG_WEBHOOK_MAX_ATTEMPTS=3
    with sessions() as s:
        logged = s.scalars(
            select(WebhookAttempt)
            .where(WebhookAttempt.job_id == job.job_id)
            .order_by(WebhookAttempt.attempt)
        ).all()
        letters = s.scalars(select(DeadLetter).where(DeadLetter.job_id == job.job_id)).all()
    if delivered:
        assert status == "delivered" and not letters
        assert [a.http_status for a in logged] == [500, None, 204]
        assert "Timeout" in (logged[1].error or "")
    else:
        assert status == "dead"
        assert [a.http_status for a in logged] == [500, 500, 500]
        assert [d.kind for d in letters] == ["webhook"]
        assert "failed 3 times, last: HTTP 500" in letters[0].reason


def _dead_letters_matching(sessions: Any, marker: str) -> list[DeadLetter]:
    with sessions() as s:
        rows = s.scalars(select(DeadLetter)).all()
        return [r for r in rows if marker in json.dumps(r.payload) or marker in (r.job_id or "")]


def test_nothing_pushed_to_the_queue_is_dropped(
    fleet: dict[str, Any], sessions: Any, redis_client: Any
) -> None:
    """Garbage, bare jobs and broken envelopes: each ends answered or dead-lettered, and the
    worker keeps running."""
    marker = uuid.uuid4().hex[:8]
    queue = fleet["queue"]
    bare_job = {
        "job_id": f"bare-{marker}",
        "tenant_id": fleet["tenant"],
        "thread_id": f"th-{marker}",
        "question": TORQUE_Q,
        "webhook_url": fleet["sink"].url,
    }
    bare_job = sign_job(bare_job, fleet["key"])
    unknown_task = envelope("crag.no_such_task", [marker], queue)
    two_args = envelope(ANSWER_TASK, [{"job_id": f"two-{marker}"}, marker], queue)
    bad_b64 = envelope(ANSWER_TASK, [marker], queue) | {"body": f"not base64 {marker}"}
    not_json = base64.b64encode(f"not json {marker}".encode()).decode()
    bad_body = envelope(ANSWER_TASK, [marker], queue) | {"body": not_json}
    for raw in (
        f"this is not json {marker}",
        json.dumps([marker, 2, 3]),
        json.dumps({"hello": marker}),
        json.dumps(bare_job),
        json.dumps(unknown_task),
        json.dumps(two_args),
        json.dumps(bad_b64),
        json.dumps(bad_body),
    ):
        redis_client.lpush(queue, raw)

    [answered] = fleet["sink"].wait_for(bare_job["job_id"])
    assert answered.body["status"] == "answered"
    expected = (
        "message is not JSON",
        "message must be a JSON object, got list",
        "neither a Celery message nor a job object",
        "unknown task 'crag.no_such_task'",
        "expected exactly one argument",
        "message body is not valid base64",
        "cannot be decoded",
    )

    def all_recorded() -> list[str] | None:
        reasons = [r.reason for r in _dead_letters_matching(sessions, marker)]
        done = all(any(e in reason for reason in reasons) for e in expected)
        return reasons if done else None

    assert _eventually(all_recorded) is not None, [
        r.reason for r in _dead_letters_matching(sessions, marker)
    ]
    # The worker survived all of it and still answers.
    job = submit(fleet, f"th-after-{marker}", TORQUE_Q)
    assert fleet["sink"].wait_for(job.job_id)


def test_a_job_id_reused_on_another_thread_runs_once(
    fleet: dict[str, Any], sessions: Any, llm: FakeOpenAIServer, settings: Any
) -> None:
    marker = uuid.uuid4().hex[:8]
    job_id, question = f"reuse-{marker}", f"{TORQUE_Q} ({marker})"
    for thread in ("a", "b"):
        submit(
            fleet,
            f"th-{thread}-{marker}",
            question,
            job_id=job_id,
        )

    [delivery] = fleet["sink"].wait_for(job_id)  # whichever copy claimed the job first
    assert delivery.body["status"] == "answered"
    rows = _eventually(lambda: _dead_letters_matching(sessions, job_id) or None)
    assert rows is not None and len(rows) == 1
    assert "was already used for another question or thread" in rows[0].reason
    assert len([u for r, u in llm.model.calls if r == "generator" and marker in u]) == 1


def test_wait_returns_promptly_for_a_dead_letter(fleet: dict[str, Any], settings: Any) -> None:
    job_id = f"dead-{uuid.uuid4().hex[:8]}"
    celery_app.send_task(
        ANSWER_TASK,
        queue=fleet["queue"],
        args=[{"job_id": job_id, "tenant_id": fleet["tenant"], "thread_id": "t", "question": ""}],
    )
    started = time.monotonic()
    outcome = wait_for_outcome(settings, fleet["tenant"], job_id, timeout_s=60)
    assert outcome is not None and outcome["status"] == "dead_letter"
    assert "question: String should have at least 1 character" in outcome["reason"]
    assert time.monotonic() - started < 30  # woken by the channel, not by the timeout


def test_cli_refuses_bad_input_with_clear_errors(fleet: dict[str, Any]) -> None:
    runner = CliRunner()
    bad_secret = runner.invoke(
        cli, ["tenants", "create", f"t-{uuid.uuid4().hex[:6]}", "--secret", "notawhsec"]
    )
    assert bad_secret.exit_code == 2 and "starts with 'whsec_'" in bad_secret.output
    unknown = runner.invoke(cli, ["ask", "hello?", "--tenant", "nobody-here", "--thread", "t"])
    assert unknown.exit_code == 2 and "unknown tenant 'nobody-here'" in unknown.output
    first = submit(fleet, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
    assert fleet["sink"].wait_for(first.job_id)  # registered (the check reads its row)
    reused = runner.invoke(
        cli,
        [
            *("ask", "Another question?", "--tenant", fleet["tenant"]),
            *("--thread", "elsewhere", "--job-id", first.job_id, "--wait"),
        ],
    )
    assert reused.exit_code == 2 and "already used for another question" in reused.output


def test_a_4xx_from_the_receiver_is_permanent(fleet: dict[str, Any], sessions: Any) -> None:
    secret = tenant_keys(fleet["tenant"]).webhook_secret
    with WebhookReceiver(secret, fail_first=99, fail_status=404) as gone:
        job = submit(
            fleet,
            f"th-{uuid.uuid4().hex[:8]}",
            TORQUE_Q,
            webhook_url=gone.url,
        )
        [only] = gone.wait_for(job.job_id)
        rows = _eventually(lambda: _dead_letters_matching(sessions, job.job_id) or None)
    assert only.body["status"] == "answered"
    assert rows is not None and "failed 1 times, last: HTTP 404" in rows[0].reason
    assert len(gone.wait_for(job.job_id, count=2, timeout_s=3)) == 1  # not retried


def test_webhook_to_a_private_address_is_refused(fleet: dict[str, Any], settings: Any) -> None:
    tenant = f"t-ssrf-{uuid.uuid4().hex[:6]}"
    key = tenant_keys(tenant).submission_key  # no allowlist
    try:
        job = submit_question(
            celery_app,
            fleet["queue"],
            tenant,
            f"th-{tenant}",
            TORQUE_Q,
            webhook_url="http://127.0.0.1:29200/crag-pgdocs/_doc",
            key=key,
        )
        outcome = wait_for_outcome(settings, tenant, job.job_id, timeout_s=60)
        assert outcome is not None and outcome["status"] == "dead_letter"
        assert "webhook_url must use https" in outcome["reason"]
    finally:
        forget_tenant(settings, tenant)


def test_jobs_waiting_on_a_stuck_thread_hold_no_slot_and_end_at_their_deadline(
    fleet: dict[str, Any], redis_client: Any
) -> None:
    stuck = f"th-busy-{uuid.uuid4().hex[:8]}"
    with thread_held(redis_client, fleet["tenant"], stuck):  # a hung worker holds it
        waiting = [submit(fleet, stuck, TORQUE_Q, deadline_s=6) for _ in range(3)]
        # Three jobs wait on the stuck thread, more than the worker's two slots; a job on
        # another thread is still answered at once, so waiting holds no slot.
        other = submit(fleet, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
        [answered] = fleet["sink"].wait_for(other.job_id, timeout_s=20)
        assert answered.body["status"] == "answered"
        assert all(not fleet["sink"].wait_for(j.job_id, timeout_s=0) for j in waiting)
        bodies = [fleet["sink"].wait_for(j.job_id, timeout_s=30)[0].body for j in waiting]
    for body in bodies:
        assert (body["status"], body["reason"], body["handoff"]) == (
            "failed",
            "deadline_exceeded",
            True,
        )
        assert body["path"] == []  # it never ran: the thread was never its


def test_a_job_past_its_deadline_ends_with_the_apology(fleet: dict[str, Any]) -> None:
    job = new_job(
        fleet["tenant"],
        f"th-{uuid.uuid4().hex[:8]}",
        f"VERYSLOW {TORQUE_Q}",
        webhook_url=fleet["sink"].url,
        deadline_s=2.5,  # the VERYSLOW generator alone takes 4 s
    )
    submit_job(celery_app, job, fleet["queue"], fleet["key"])
    [delivery] = fleet["sink"].wait_for(job.job_id, timeout_s=60)
    body = delivery.body
    assert (body["status"], body["reason"], body["handoff"]) == (
        "failed",
        "deadline_exceeded",
        True,
    )
    assert body["answer"].startswith("Sorry") and body["citations"] == []
    assert "finalize" not in body["path"]

    # The thread is usable afterwards: the next turn runs normally.
    nxt = submit(
        fleet,
        job.thread_id,
        TORQUE_Q,
    )
    [after] = fleet["sink"].wait_for(nxt.job_id, timeout_s=60)
    assert after.body["status"] == "answered"


def test_reject_strategy_answers_rejected_busy_at_once(
    fleet: dict[str, Any], redis_client: Any, llm: FakeOpenAIServer
) -> None:
    thread = f"th-busy-{uuid.uuid4().hex[:8]}"
    with thread_held(redis_client, fleet["tenant"], thread):
        job = submit(
            fleet,
            thread,
            f"{TORQUE_Q} {thread}",
            multitask="reject",
        )
        [delivery] = fleet["sink"].wait_for(job.job_id, timeout_s=30)
    assert (delivery.body["status"], delivery.body["reason"]) == ("failed", "rejected_busy")
    assert not any(thread in user for _, user in llm.model.calls)  # the graph never ran


def test_a_worker_killed_mid_graph_resumes_from_its_checkpoint(
    fleet: dict[str, Any], llm: FakeOpenAIServer
) -> None:
    marker = uuid.uuid4().hex[:8]
    KILL_SWITCHES[marker] = threading.Event()
    job = submit(
        fleet,
        f"th-{marker}",
        f"KILLME-{marker} {TORQUE_Q}",
    )
    assert KILL_SWITCHES[marker].wait(60), "the run never reached the generator"
    subprocess.run(["pkill", "-KILL", "-P", str(fleet["pid"])], check=False)  # kill -9

    [delivery] = fleet["sink"].wait_for(job.job_id, timeout_s=120)
    body = delivery.body
    assert body["status"] == "answered" and body["resumed"] is True
    mine = [(role, user) for role, user in llm.model.calls if marker in user]
    roles = [role for role, _ in mine]
    graders = [user for role, user in mine if role == "grader"]
    # The nodes finished before the kill did not run again; generate ran once more.
    assert len(graders) == len(set(graders)) > 0
    assert roles.count("generator") == 2


def test_operator_inspects_and_redelivers_a_dead_delivery(
    fleet: dict[str, Any], sessions: Any
) -> None:
    secret = tenant_keys(fleet["tenant"]).webhook_secret
    runner = CliRunner()
    with WebhookReceiver(secret, fail_first=99) as flaky:
        job = submit(
            fleet,
            f"th-{uuid.uuid4().hex[:8]}",
            TORQUE_Q,
            webhook_url=flaky.url,
        )
        flaky.wait_for(job.job_id, count=3, timeout_s=90)

        def dead() -> bool | None:
            with sessions() as s:
                record = s.get(OutcomeRecord, (fleet["tenant"], job.job_id))
                return True if record and record.delivery_status == "dead" else None

        assert _eventually(dead)
        shown = runner.invoke(cli, ["deliveries", "show", job.job_id, "--tenant", fleet["tenant"]])
        assert shown.exit_code == 0, shown.output
        report = json.loads(shown.output)
        assert report["delivery_status"] == "dead"
        assert [a["http_status"] for a in report["attempts"]] == [500, 500, 500]
        assert all(a["latency_ms"] is not None for a in report["attempts"])

        flaky.fail_first = 0  # the receiver is fixed
        # A fresh process, as an operator runs it (this one already has a configured app).
        again = subprocess.run(
            [
                sys.executable,
                "-m",
                "workers.cli",
                "deliveries",
                "redeliver",
                job.job_id,
                "--tenant",
                fleet["tenant"],
                "--queue",
                fleet["deliveries"],
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert again.returncode == 0, again.stdout + again.stderr
        deliveries = flaky.wait_for(job.job_id, count=4, timeout_s=60)
    assert len(deliveries) == 4 and deliveries[-1].verified
    assert {d.webhook_id for d in deliveries} == {webhook_id(fleet["tenant"], job.job_id)}
    listed = runner.invoke(
        cli,
        [
            "deliveries",
            "list",
            "--tenant",
            fleet["tenant"],
            "--status",
            "delivered",
            "--limit",
            "500",
        ],
    )
    assert job.job_id in listed.output


def test_only_signed_jobs_of_active_tenants_on_their_own_threads_run(
    fleet: dict[str, Any], settings: Any, llm: FakeOpenAIServer
) -> None:
    marker = uuid.uuid4().hex[:8]
    other = f"t-other-{marker}"
    other_key = tenant_keys(other, allow_hosts=["127.0.0.1"]).submission_key
    owned = submit(fleet, f"th-owned-{marker}", TORQUE_Q)  # the fleet tenant's thread
    assert fleet["sink"].wait_for(owned.job_id)
    try:

        def body(job_id: str, tenant: str, thread: str) -> dict[str, Any]:
            return new_job(
                tenant, thread, f"{TORQUE_Q} {marker}", job_id=job_id, webhook_url=fleet["sink"].url
            ).model_dump(mode="json", exclude={"signed_at", "signature"})

        cases = {
            # Claims the fleet tenant, signed with another tenant's key.
            f"forged-{marker}": sign_job(body(f"forged-{marker}", fleet["tenant"], "x"), other_key),
            f"unsigned-{marker}": body(f"unsigned-{marker}", fleet["tenant"], "y"),
            # Properly signed by the other tenant, naming the fleet tenant's thread.
            f"trespass-{marker}": sign_job(
                body(f"trespass-{marker}", other, owned.thread_id), other_key
            ),
        }
        for job_body in cases.values():
            celery_app.send_task(ANSWER_TASK, args=[job_body], queue=fleet["queue"])
        expected = {
            f"forged-{marker}": "does not verify with tenant",
            f"unsigned-{marker}": "job is not signed",
            f"trespass-{marker}": f"thread '{owned.thread_id}' belongs to another tenant",
        }
        for job_id, reason in expected.items():
            tenant = other if job_id.startswith("trespass") else fleet["tenant"]
            outcome = wait_for_outcome(settings, tenant, job_id, timeout_s=60)
            assert outcome is not None and outcome["status"] == "dead_letter", job_id
            assert reason in outcome["reason"], outcome
        assert not any(marker in user for _, user in llm.model.calls)  # no graph ever ran

        assert CliRunner().invoke(cli, ["tenants", "disable", other]).exit_code == 0
        late = sign_job(body(f"late-{marker}", other, f"th-{other}"), other_key)
        celery_app.send_task(ANSWER_TASK, args=[late], queue=fleet["queue"])
        outcome = wait_for_outcome(settings, other, f"late-{marker}", timeout_s=60)
        assert outcome is not None and "is disabled; new jobs are refused" in outcome["reason"]
    finally:
        forget_tenant(settings, other)


def test_progress_events_tell_the_run_as_it_happens_and_release_the_answer_last(
    fleet: dict[str, Any], redis_client: Any
) -> None:
    from workers.cli.watching import follow

    job = submit(fleet, f"th-{uuid.uuid4().hex[:8]}", f"SLOW {TORQUE_Q}")
    lines: list[tuple[float, str]] = []
    watcher = threading.Thread(
        target=follow,
        args=(redis_client, fleet["tenant"], job.job_id),
        kwargs={
            "timeout_s": 60,
            "as_json": True,
            "write": lambda line: lines.append((time.monotonic(), line)),
            "cipher": key_ring_from_settings(Settings()),
        },
    )
    watcher.start()
    [delivery] = fleet["sink"].wait_for(job.job_id)
    watcher.join(timeout=60)
    events = [json.loads(line) for _, line in lines]
    kinds = [e["kind"] for e in events]
    # Live: the route and the grades were read while the generator was still at work.
    first_grade = next(at for (at, _), e in zip(lines, events, strict=True) if e["kind"] == "grade")
    assert first_grade < delivery.received_at
    # The story, in order, each event naming its job and thread.
    story = [k for k in kinds if k in ("route", "retrieve", "grades", "generate", "verdict")]
    assert story[:5] == ["route", "retrieve", "grades", "generate", "verdict"]
    assert kinds[-2:] == ["decision", "outcome"] or kinds[-1] == "outcome"
    assert all(e["job_id"] == job.job_id and e["thread_id"] == job.thread_id for e in events[:-1])
    grades = [e["data"] for e in events if e["kind"] == "grade"]
    assert grades and all({"score", "relevant", "reason", "locator"} <= set(g) for g in grades)
    verdict = next(e["data"] for e in events if e["kind"] == "verdict")
    assert verdict["grounded"] is True and verdict["claims"] and all(verdict["claims"])
    usage = [e["data"] for e in events if e["kind"] == "usage"]
    assert usage[-1]["calls"] == delivery.body["model_calls"]
    # The answer appears only in the final, verified event.
    answer = delivery.body["answer"]
    assert answer and all(answer not in json.dumps(e) for e in events[:-1])
    final = events[-1]["data"]
    assert (final["status"], final["answer"]) == ("answered", answer)
    assert final["citations"][0]["locator"].endswith("rotor-maintenance.md")
    # A late reader (`crag watch`) gets the whole story; the human form shows grade chips.
    late = CliRunner().invoke(cli, ["watch", job.job_id, "--tenant", fleet["tenant"], "--json"])
    assert late.exit_code == 0, late.output
    assert [json.loads(x)["kind"] for x in late.stdout.splitlines()] == kinds
    shown = CliRunner().invoke(cli, ["watch", job.job_id, "--tenant", fleet["tenant"]])
    assert "route vectorstore" in shown.output and "✓" in shown.output
    assert "outcome: answered" in shown.output and answer in shown.output


def test_a_progress_url_gets_the_events_in_order_signed_like_the_webhook(
    fleet: dict[str, Any], redis_client: Any, settings: Any
) -> None:
    secret = tenant_keys(fleet["tenant"]).webhook_secret
    with WebhookReceiver(secret) as progress:
        job = submit(
            fleet, f"th-{uuid.uuid4().hex[:8]}", f"SLOW {TORQUE_Q}", progress_url=progress.url
        )
        [delivery] = fleet["sink"].wait_for(job.job_id)
        stream = read_events(
            redis_client, fleet["tenant"], job.job_id, cipher=key_ring_from_settings(settings)
        )
        pushed = progress.wait_for(job.job_id, count=len(stream) - 1, timeout_s=30)
    # Every graph event, in the stream's order, each signed with the tenant's secret under a
    # stable id; the answer itself goes only to the webhook.
    assert [d.body["event"]["id"] for d in pushed] == [e["id"] for e in stream[:-1]]
    assert [d.body["event"] for d in pushed] == stream[:-1]
    assert all(
        d.verified and d.webhook_id == f"progress_{job.job_id}_{d.body['event']['id']}"
        for d in pushed
    )
    assert pushed[-1].body["event"]["kind"] in ("decision", "usage")
    assert delivery.body["answer"] not in json.dumps([d.body for d in pushed])


def test_a_progress_url_to_a_private_address_is_refused(
    fleet: dict[str, Any], settings: Any
) -> None:
    job = submit(
        fleet, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q, progress_url="http://10.1.2.3/progress"
    )
    outcome = wait_for_outcome(settings, fleet["tenant"], job.job_id, 30)
    assert outcome is not None and outcome["status"] == "dead_letter"
    assert "progress_url must use https" in outcome["reason"]


def test_watch_names_the_problem_when_a_job_never_ends(fleet: dict[str, Any]) -> None:
    shown = CliRunner().invoke(
        cli, ["watch", "no-such-job", "--tenant", fleet["tenant"], "--timeout", "1"]
    )
    assert shown.exit_code == 2
    assert "did not end within 1s" in shown.output
