"""Running one job: the testable core under the Celery task.

:func:`answer_job` validates the tenant, short-circuits a job that finished before, takes
the thread lock, runs the graph with the Postgres checkpointer, checks the lock is still
held and stores the outcome (the outbox row). Delivery happens after, outside the lock.
"""

from __future__ import annotations

import logging
import time
from contextlib import ExitStack, closing
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from sqlalchemy.orm import Session

from pipeline.accounting import calls_by_kind, made, tokens_by_model
from pipeline.graph import RECURSION_LIMIT
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.db.models import JobRecord, OutcomeRecord
from workers.errors import LockTimeout, PermanentJobError
from workers.jobs import Job, OutcomeBody, webhook_id
from workers.lock import thread_lock
from workers.resources import Resources
from workers.webhook_policy import webhook_url_problem

log = logging.getLogger(__name__)
tracer = trace.get_tracer("crag.workers")


@dataclass(frozen=True)
class Result:
    """A job's stored outcome, and whether this call produced it (False: it existed)."""

    outcome: OutcomeRecord
    fresh: bool


def answer_job(job: Job, res: Resources) -> Result:
    """Answer ``job`` once; a job_id seen before returns its stored outcome.

    Raises:
        PermanentJobError: The tenant is not registered, the webhook URL is not allowed
            (:mod:`workers.webhook_policy`), or the job_id was already used for a different
            question or thread (an idempotency key must not be reused).
        LockTimeout: The thread stayed busy past ``lock_wait_s`` (retry later).
        LockLost: The lock was lost during the run; nothing was stored (retry later).
    """
    s = res.settings
    with transaction(res.sessions) as session:
        tenant = repo.get_tenant(session, job.tenant_id)
        if tenant is None:
            raise PermanentJobError(
                f"unknown tenant {job.tenant_id!r}", job_id=job.job_id, tenant_id=job.tenant_id
            )
        if job.webhook_url is not None:
            problem = webhook_url_problem(str(job.webhook_url), tenant.webhook_allowlist)
            if problem:
                raise PermanentJobError(problem, job_id=job.job_id, tenant_id=job.tenant_id)
        done = _finished(session, job)
    if done is not None:
        return Result(done, fresh=False)
    reject = job.options.multitask == "reject"
    with ExitStack() as stack:
        try:
            held = stack.enter_context(
                thread_lock(
                    res.redis,
                    job.tenant_id,
                    job.thread_id,
                    ttl_s=s.lock_ttl_s,
                    wait_s=0 if reject else s.lock_wait_s,
                )
            )
        except LockTimeout:
            if not reject:
                raise
            # Double-texting with the "reject" strategy: tell the caller at once.
            busy = f"thread {job.thread_id!r} is busy with another job"
            rejected = record_failure(job, res, busy, reason="rejected_busy")
            return Result(rejected or _stored(res, job), fresh=rejected is not None)
        with transaction(res.sessions) as session:
            # Checked again under the lock: a duplicate may have finished while we waited.
            done = _finished(session, job)
            if done is not None:
                return Result(done, fresh=False)
            # The upsert takes the job row's lock, so of two copies of a job_id sent on
            # different threads (different thread locks) only the first can claim it.
            _check_same_job(repo.start_job(session, job), job)
        body = run_graph(job, res)
        held.check()  # a worker that lost its lock must not publish
        with transaction(res.sessions) as session:
            record = repo.save_outcome(
                session,
                body,
                webhook_id(job.tenant_id, job.job_id),
                has_webhook=job.webhook_url is not None,
            )
    return Result(record, fresh=True)


def _stored(res: Resources, job: Job) -> OutcomeRecord:
    with transaction(res.sessions) as session:
        record = repo.get_outcome(session, job.tenant_id, job.job_id)
    assert record is not None  # record_failure found one
    return record


def _finished(session: Session, job: Job) -> OutcomeRecord | None:
    """The stored outcome of ``job`` if it finished before (after checking it is the same)."""
    done = repo.get_outcome(session, job.tenant_id, job.job_id)
    if done is not None:
        record = repo.get_job(session, job.tenant_id, job.job_id)
        if record is not None:
            _check_same_job(record, job)
    return done


def _check_same_job(record: JobRecord, job: Job) -> None:
    if (record.thread_id, record.question) != (job.thread_id, job.question):
        raise PermanentJobError(
            f"job_id {job.job_id!r} was already used for another question or thread "
            f"(thread {record.thread_id!r}); use a new job_id for a new question",
            job_id=job.job_id,
            tenant_id=job.tenant_id,
        )


def run_graph(job: Job, res: Resources) -> OutcomeBody:
    """Run one turn of the graph on the job's thread and shape its outcome.

    A run of the same job that a killed worker left unfinished on the thread resumes from
    its last checkpoint (durable execution: finished nodes do not run again). The run
    streams super-step by super-step and stops at the first step that ends past
    the job's deadline (``submitted_at`` + ``deadline_s``), which then ends with the apology
    outcome (``failed``, ``deadline_exceeded``, ``handoff``), so the user always gets an
    answer, an abstention or an apology in time. Model timeouts bound a single step.
    """
    deps = res.deps_for(job.tenant_id, job.options.allow_web)
    config: Any = {
        "configurable": {"thread_id": job.graph_thread_id},
        "recursion_limit": RECURSION_LIMIT,
        "metadata": {"job_id": job.job_id, "tenant_id": job.tenant_id},
    }
    deadline_s = job.options.deadline_s or res.settings.job_deadline_s
    deadline = job.submitted_at.timestamp() + deadline_s
    started = time.perf_counter()
    state: dict[str, Any] = {}
    with tracer.start_as_current_span("crag.job") as span:
        span.set_attribute("crag.job_id", job.job_id)
        span.set_attribute("crag.tenant_id", job.tenant_id)
        span.set_attribute("crag.thread_id", job.thread_id)
        # A run of this job that a dead worker left half-done resumes from its last
        # checkpoint (input None) instead of starting the turn over.
        snapshot = res.graph.get_state(config)
        resumed = bool(snapshot.next) and snapshot.metadata.get("job_id") == job.job_id
        span.set_attribute("crag.resumed", resumed)
        if time.time() < deadline:
            steps = res.graph.stream(
                None if resumed else {"question": job.question},
                config,
                context=deps,
                stream_mode="values",
            )
            with closing(steps):
                for values in steps:
                    state = values  # the full state after each super-step
                    if time.time() >= deadline:
                        break
        trace_id = format(span.get_span_context().trace_id, "032x")
        latency_ms = int((time.perf_counter() - started) * 1000)
        if not state.get("outcome"):
            span.set_attribute("crag.outcome", "deadline_exceeded")
            return apology(job, res, state, deadline_s, latency_ms, trace_id)
        span.set_attribute("crag.outcome", state["outcome"]["status"])
    return outcome_body(job, state, latency_ms, trace_id).model_copy(update={"resumed": resumed})


def apology(
    job: Job,
    res: Resources,
    state: dict[str, Any],
    deadline_s: float,
    latency_ms: int,
    trace_id: str,
) -> OutcomeBody:
    """The outcome of a job that missed its deadline: the apology, for a person to follow up."""
    return OutcomeBody(
        job_id=job.job_id,
        tenant_id=job.tenant_id,
        thread_id=job.thread_id,
        status="failed",
        answer=res.settings.apology,
        reason="deadline_exceeded",
        detail=f"no verified answer within {deadline_s:g}s of submission",
        handoff=True,
        route=state.get("route"),
        path=state.get("trace", []),
        queries_tried=state.get("queries_tried", []),
        latency_ms=latency_ms,
        trace_id=trace_id,
    )


def outcome_body(
    job: Job, state: dict[str, Any], latency_ms: int, trace_id: str | None
) -> OutcomeBody:
    """The outcome contract from a finished turn's state."""
    outcome = state["outcome"]
    calls = state.get("calls", [])
    return OutcomeBody(
        job_id=job.job_id,
        tenant_id=job.tenant_id,
        thread_id=job.thread_id,
        status=outcome["status"],
        answer=outcome["answer"],
        citations=outcome["citations"],
        reason=outcome["reason"],
        detail=outcome["detail"],
        route=state.get("route"),
        path=state.get("trace", []),
        queries_tried=state.get("queries_tried", []),
        web_query=state.get("web_query"),
        rewrites=state.get("rewrites", 0),
        generations=state.get("generations", 0),
        web_used=state.get("web_used", False),
        model_calls=len(made(calls)),
        calls_by_kind=calls_by_kind(calls),
        tokens_by_model=tokens_by_model(calls),
        model_failures=[
            {"kind": c["kind"], "model": c["model"], "error": c.get("error") or "?"}
            for c in calls
            if not c["ok"]
        ],
        latency_ms=latency_ms,
        trace_id=trace_id,
    )


def record_failure(
    job: Job, res: Resources, detail: str, reason: str = "internal_error"
) -> OutcomeRecord | None:
    """Store a ``failed`` outcome so the caller still gets a response.

    Used for a job the fleet could not answer: ``reason`` is ``internal_error`` (a bug) or
    ``retries_exhausted`` (a service or the thread stayed unavailable). Returns ``None`` if
    the job already has an outcome.
    """
    body = OutcomeBody(
        job_id=job.job_id,
        tenant_id=job.tenant_id,
        thread_id=job.thread_id,
        status="failed",
        reason=reason,
        detail=detail,
    )
    with transaction(res.sessions) as session:
        if repo.get_outcome(session, job.tenant_id, job.job_id) is not None:
            return None
        repo.start_job(session, job)
        return repo.save_outcome(
            session,
            body,
            webhook_id(job.tenant_id, job.job_id),
            has_webhook=job.webhook_url is not None,
        )
