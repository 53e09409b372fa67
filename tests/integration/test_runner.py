"""The runner in-process against the real services: Postgres checkpointer across turns, and
the OpenTelemetry trace of a job (one trace, a span per node and per model call)."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from workers.cli.main import tenant_keys
from workers.contracts.errors import LockLost, PermanentJobError
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.progress import TTL_S as PROGRESS_TTL_S
from workers.core.progress import ProgressLocked, progress_key, read_events
from workers.core.runner import answer_job, run_graph
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.lock import alive_key, lock_name
from workers.runtime.resources import Resources

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"


@pytest.fixture(scope="module")
def spans() -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


@pytest.fixture(scope="module")
def resources(settings: Any, migrated_db: str, corpus_tenant: str) -> Iterator[Resources]:
    res = Resources.create(settings, models=Models.single(torque_model()))
    yield res
    res.close()


def test_one_trace_per_job_with_a_span_per_node(
    resources: Resources, corpus_tenant: str, spans: InMemorySpanExporter
) -> None:
    job = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
    body = run_graph(job, context_of(resources))

    mine = [
        s for s in spans.get_finished_spans() if format(s.context.trace_id, "032x") == body.trace_id
    ]
    names = [s.name for s in mine]
    [root] = [s for s in mine if s.name == "crag.job"]
    assert root.attributes["crag.outcome"] == "answered"
    for node in body.path:
        assert f"crag.node.{node}" in names
    # No web search configured, so no router call: graders, the generator, the verifier.
    assert names.count("crag.node.grade_chunk") == names.count("chat scripted") - 2
    node_spans = [s for s in mine if s.name.startswith("crag.node.")]
    assert {s.attributes["crag.tenant_id"] for s in node_spans} == {corpus_tenant}
    assert {s.attributes["crag.thread_id"] for s in node_spans} == {job.graph_thread_id}
    [assess] = [s for s in mine if s.name == "crag.node.assess_grades"]
    assert assess.attributes["crag.chunks_kept"] == 1
    assert assess.attributes["crag.chunks_graded"] >= 1
    [route_span] = [s for s in mine if s.name == "crag.node.route_question"]
    assert route_span.attributes["crag.route"] == "vectorstore"
    calls = [s for s in mine if s.name == "chat scripted"]
    assert {s.attributes["gen_ai.request.model"] for s in calls} == {"scripted"}
    assert all(s.attributes["gen_ai.usage.input_tokens"] > 0 for s in calls)
    assert all("gen_ai.usage.cache_read.input_tokens" in s.attributes for s in calls)
    assert body.prompt_tokens == sum(s.attributes["gen_ai.usage.input_tokens"] for s in calls)


def test_a_job_publishes_each_node_it_starts_for_readers_to_follow(
    resources: Resources, corpus_tenant: str
) -> None:
    job = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
    body = run_graph(job, context_of(resources))

    events = read_events(
        resources.redis, job.tenant_id, job.job_id, cipher=resources.progress_cipher
    )
    nodes = [e["node"] for e in events if e["kind"] == "node"]
    # Every node of the path started, in order (the graders once per chunk, together).
    assert [n for n in nodes if n != "grade_chunk"] == [n for n in body.path if n != "grade_chunk"]
    assert nodes.count("grade_chunk") == body.calls_by_kind["grader"]
    assert [e["at"] for e in events] == sorted(e["at"] for e in events)
    key = progress_key(job.tenant_id, job.job_id)
    assert 0 < resources.redis.ttl(key) <= PROGRESS_TTL_S
    # Payloads are encrypted like checkpoints: the shape of the run shows, its text does not.
    raw = resources.redis.xrange(key)
    assert all(fields[b"enc"].startswith(b"aesgcm-") for _, fields in raw)
    assert not any(b"vectorstore" in f[b"data"] or b"rotor" in f[b"data"] for _, f in raw)
    assert [f[b"kind"].decode() for _, f in raw] == [e["kind"] for e in events]
    with pytest.raises(ProgressLocked, match="CRAG_CHECKPOINT_KEY_FILE"):
        read_events(resources.redis, job.tenant_id, job.job_id)
    # A late reader resumes after the last entry it saw and waits for no more than asked.
    assert (
        read_events(
            resources.redis,
            job.tenant_id,
            job.job_id,
            events[-1]["id"],
            cipher=resources.progress_cipher,
        )
        == []
    )


def test_postgres_checkpointer_keeps_the_thread(resources: Resources, corpus_tenant: str) -> None:
    thread = f"th-{uuid.uuid4().hex[:8]}"
    for question in (TORQUE_Q, f"{TORQUE_Q} Again?"):
        run_graph(new_job(corpus_tenant, thread, question), context_of(resources))

    config = {"configurable": {"thread_id": f"{corpus_tenant}:{thread}"}}
    state = resources.graph.get_state(config).values
    assert [t["question"] for t in state["history"]] == [TORQUE_Q, f"{TORQUE_Q} Again?"]
    assert state["generations"] == 1  # counters are per turn
    other = resources.graph.get_state({"configurable": {"thread_id": f"other:{thread}"}})
    assert not other.values  # thread ids are namespaced by tenant


def test_a_stale_run_cannot_write_a_checkpoint_or_store_an_outcome(
    resources: Resources, corpus_tenant: str
) -> None:
    tenant_keys(corpus_tenant)
    job = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
    with transaction(resources.sessions) as session:
        stale = repo.claim_fence(session, job)
    with transaction(resources.sessions) as session:
        current = repo.claim_fence(session, job)  # a newer holder took the thread meanwhile
    assert current == stale + 1
    config = {"configurable": {"thread_id": job.graph_thread_id}}

    # Postgres refuses the stale run's very first checkpoint, so it changes nothing.
    with pytest.raises(LockLost, match="stale fence"):
        run_graph(job, context_of(resources), fence=stale)
    assert not resources.graph.get_state(config).values
    with pytest.raises(LockLost, match="stale"), transaction(resources.sessions) as session:
        repo.check_fence(session, job.tenant_id, job.thread_id, stale)

    body = run_graph(job, context_of(resources), fence=current)
    assert body.status == "answered"
    with transaction(resources.sessions) as session:
        repo.check_fence(session, job.tenant_id, job.thread_id, current)
    fences = {c.metadata.get("crag_fence") for c in resources.graph.get_state_history(config)}
    assert fences == {current}


def test_spans_carry_no_question_text_unless_debugging_and_then_redacted(
    resources: Resources, corpus_tenant: str, spans: InMemorySpanExporter
) -> None:
    question = f"{TORQUE_Q} I am Jane Doe, jane.doe@example.com."

    def attributes(body: Any) -> str:
        mine = [
            s
            for s in spans.get_finished_spans()
            if format(s.context.trace_id, "032x") == body.trace_id
        ]
        return json.dumps([dict(s.attributes or {}) for s in mine])

    quiet = run_graph(
        new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", question), context_of(resources)
    )
    assert "rotor shaft" not in attributes(quiet) and "Jane" not in attributes(quiet)

    debug = dataclasses.replace(
        resources, settings=resources.settings.model_copy(update={"trace_question": True})
    )
    loud = run_graph(
        new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", question), context_of(debug)
    )
    shown = attributes(loud)
    assert "rotor shaft fastener" in shown  # the debug setting shows the question…
    assert "Jane" not in shown and "jane.doe" not in shown  # …redacted


def test_a_job_from_the_future_is_refused(resources: Resources, corpus_tenant: str) -> None:
    tenant_keys(corpus_tenant)
    job = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q)
    ahead = job.model_copy(update={"submitted_at": job.submitted_at + timedelta(days=365)})
    with pytest.raises(PermanentJobError, match="is in the future"):
        answer_job(ahead, context_of(resources))


def test_a_reject_job_finding_its_own_copy_running_waits_instead_of_rejecting(
    resources: Resources, corpus_tenant: str
) -> None:
    """Two copies of one job (its message, and the task that runs the thread's next job)
    can reach the lock together: the one that loses must not store ``rejected_busy`` for
    a job the other is answering; another job holding the thread is still busy."""
    job = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", TORQUE_Q, multitask="reject")
    process = f"test-copy-{uuid.uuid4().hex[:8]}"
    resources.redis.set(alive_key(process), 1, px=60_000)  # a live holder: busy, not stale
    lock = resources.redis.lock(
        lock_name(job.tenant_id, job.thread_id), timeout=60, thread_local=False
    )
    try:
        assert lock.acquire(blocking=False, token=f"{job.job_id}@{process}")
        waiting = answer_job(job, context_of(resources))
        assert waiting.outcome is None and waiting.wait_s > 0
        lock.release()
        assert lock.acquire(blocking=False, token=f"other-job@{process}")
        rejected = answer_job(job, context_of(resources))
        assert rejected.outcome is not None and rejected.outcome.body["reason"] == "rejected_busy"
    finally:
        lock.release()
        resources.redis.delete(alive_key(process))
