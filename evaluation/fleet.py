"""The graph arm: each question through the real fleet path, as an upstream system sends it.

A ``crag worker`` subprocess (one slot, so latencies are one question at a time) consumes a
queue private to this run; each question is signed with the tenant's submission key and
submitted with :func:`workers.client.intake.submit_question` on a fresh thread, web search
off; the outcome is awaited with :func:`workers.client.waiting.wait_for_outcome`. The
grader's verdicts of the turn are then read back from the thread's encrypted checkpoints
(every ``graded`` entry across the checkpoint history, de-duplicated by round and chunk id)
and labelled for the grader precision and recall.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evaluation.dataset import EvalItem
from evaluation.scoring import Attempt, GradedChunk, label_chunk
from workers.settings import Settings

WORKER_COMMAND = (sys.executable, "-m", "workers.cli", "worker", "--concurrency", "1")
"""One slot: questions run one at a time, so latencies do not include another's run."""

READY_MARK = " ready."
"""What a Celery worker's log says once it consumes (``celery@host ready.``)."""


@contextmanager
def worker_process(
    env: Mapping[str, str], log_path: Path, *, cwd: Path, ready_timeout_s: float = 120
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``crag worker --concurrency 1`` with ``env`` until the block ends.

    Args:
        env: The worker's whole environment (its ``CRAG_*`` settings included).
        log_path: Where its output goes (overwritten).
        cwd: Its working directory (the repository root).
        ready_timeout_s: How long to wait for it to consume, seconds.

    Raises:
        RuntimeError: It exited, or was not ready in time; the message has its log's tail.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    hostname = f"eval-{uuid.uuid4().hex[:6]}@%h"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [*WORKER_COMMAND, "--hostname", hostname],
            env=dict(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=cwd,
        )
    try:
        deadline = time.monotonic() + ready_timeout_s
        while READY_MARK not in log_path.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-3000:]
                state = f"exited with {proc.returncode}" if proc.poll() is not None else "not ready"
                raise RuntimeError(f"eval worker {state} (log {log_path}):\n{tail}")
            time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def forget_queues(redis_url: str, queues: Iterable[str]) -> None:
    """Delete private queues and kombu's bindings of them, once their worker has stopped.

    Anything still queued there (a job past its wait) is dropped with them: its worker is
    gone, and the run recorded it as failed.
    """
    from redis import Redis

    client = Redis.from_url(redis_url)
    try:
        for queue in queues:
            client.delete(queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
    finally:
        client.close()


def attempt_from_outcome(outcome: Mapping[str, Any] | None, wall_s: float) -> Attempt:
    """An :class:`Attempt` from an outcome body (``None``: no outcome in time).

    Tokens come from the outcome's ``prompt_tokens`` / ``output_tokens`` totals when it has
    them, else from summing ``tokens_by_model``. Latency is the worker's run
    (``latency_ms``), or ``wall_s`` (enqueue to outcome) when the outcome has none.
    A dead-lettered job is ``failed`` with reason ``dead_letter``.
    """
    if outcome is None:
        return Attempt(
            status="failed", reason="timeout", detail="no outcome in time", latency_s=wall_s
        )
    if outcome.get("status") == "dead_letter":
        return Attempt(
            status="failed",
            reason="dead_letter",
            detail=str(outcome.get("reason", "")),
            latency_s=wall_s,
        )
    by_model = outcome.get("tokens_by_model") or {}

    def total(field: str, key: str) -> int:
        value = outcome.get(field)
        return int(value) if value is not None else sum(int(t[key]) for t in by_model.values())

    status = outcome["status"]
    latency_ms = outcome.get("latency_ms") or 0
    return Attempt(
        status=status,
        answer=outcome.get("answer", "") if status == "answered" else "",
        citations=[c["locator"] for c in outcome.get("citations", [])],
        route=outcome.get("route"),
        reason=outcome.get("reason"),
        detail=outcome.get("detail", ""),
        model_calls=int(outcome.get("model_calls", 0)),
        prompt_tokens=total("prompt_tokens", "input"),
        cached_prompt_tokens=int(outcome.get("cached_prompt_tokens") or 0),
        output_tokens=total("output_tokens", "output"),
        latency_s=latency_ms / 1000 if latency_ms else wall_s,
    )


def graded_chunks(graph: Any, thread_id: str, item: EvalItem) -> list[GradedChunk]:
    """Every grader verdict of the thread's checkpoints, labelled for ``item``.

    Args:
        graph: The compiled graph over the fleet's checkpointer.
        thread_id: The checkpointer's thread id, ``"<tenant>:<thread>"``.
        item: The question's labels.

    Returns:
        One verdict per (round, chunk id), in round order then first-seen order.
    """
    config: Any = {"configurable": {"thread_id": thread_id}}
    seen: dict[tuple[int, str], GradedChunk] = {}
    # History is newest first; walk it oldest first so "first seen" follows the run.
    for snapshot in reversed(list(graph.get_state_history(config))):
        for verdict in snapshot.values.get("graded") or []:
            doc = verdict["document"]
            key = (int(verdict["round"]), doc["id"])
            if key not in seen:
                seen[key] = GradedChunk(
                    id=doc["id"],
                    locator=doc["locator"],
                    round=key[0],
                    score=float(verdict["score"]),
                    graded_relevant=bool(verdict["relevant"]),
                    labelled_relevant=label_chunk(item, doc["locator"], doc["text"]),
                )
    return sorted(seen.values(), key=lambda g: g.round)


class FleetArm:
    """Sends questions to a running worker on ``queue`` and reads their outcomes.

    Args:
        settings: The settings the worker runs with (same database, Redis, keys).
        queue: The questions queue the worker consumes.
        timeout_s: Each job's deadline; the wait adds one model call's worth of time, since
            the worker checks the deadline between steps.
    """

    def __init__(self, settings: Settings, queue: str, timeout_s: float) -> None:
        from pipeline.graph import build_graph
        from workers.celery.app import producer_app
        from workers.db.engine import make_engine, make_sessionmaker
        from workers.runtime.checkpointing import serde_from_settings
        from workers.runtime.resources import make_checkpointer

        self.settings = settings
        self.queue = queue
        self.timeout_s = timeout_s
        self.wait_s = timeout_s + settings.llm_timeout_s * (1 + settings.llm_max_retries)
        self._app = producer_app(settings)
        self._engine = make_engine(settings.database_url, pool_size=1)
        self._sessions = make_sessionmaker(self._engine)
        saver, self._pool = make_checkpointer(
            settings.database_url, max_size=1, serde=serde_from_settings(settings)
        )
        self._graph = build_graph(saver)
        self._keys: dict[str, str] = {}
        self.run_id = uuid.uuid4().hex[:8]

    def submission_key(self, tenant: str) -> str:
        """Register ``tenant`` if needed; return its job-submission key."""
        if tenant not in self._keys:
            from workers.core.tenants import ensure_tenant

            self._keys[tenant] = ensure_tenant(self._sessions, tenant).submission_key
        return self._keys[tenant]

    def run(self, item: EvalItem, tenant: str) -> Attempt:
        """Ask ``item``'s question as ``tenant`` on a fresh thread; wait; read its verdicts.

        Raises:
            workers.contracts.errors.PermanentJobError: The job is invalid (nothing was enqueued).
            kombu.exceptions.OperationalError: The broker cannot be reached.
        """
        from workers.client.intake import submit_question
        from workers.client.waiting import wait_for_outcome

        thread = f"eval-{self.run_id}-{item.id}"
        started = time.perf_counter()
        job = submit_question(
            self._app,
            self.queue,
            tenant,
            thread,
            item.question,
            key=self.submission_key(tenant),
            allow_web=False,
            deadline_s=self.timeout_s,
        )
        outcome = wait_for_outcome(self.settings, tenant, job.job_id, self.wait_s)
        attempt = attempt_from_outcome(outcome, time.perf_counter() - started)
        graded = graded_chunks(self._graph, f"{tenant}:{thread}", item)
        return attempt.model_copy(update={"graded": graded})

    def close(self) -> None:
        """Close the checkpointer pool and the database engine."""
        self._pool.close()
        self._engine.dispose()
