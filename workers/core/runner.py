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
from functools import partial
from typing import Any

import psycopg
from opentelemetry import trace
from sqlalchemy.orm import Session

from pipeline.graph import RECURSION_LIMIT
from workers.contracts.errors import LockLost, LockTimeout, PermanentJobError
from workers.contracts.jobs import Job, OutcomeBody, webhook_id
from workers.contracts.line import ahead_of, join_line, leave_line
from workers.contracts.signing import verify_job
from workers.core.context import JobContext
from workers.core.outcomes import apology, outcome_body
from workers.core.progress import ProgressLog
from workers.core.resume import turn_stage
from workers.core.tenants import TenantPolicy
from workers.db import fencing
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.db.models import JobRecord, OutcomeRecord, Tenant
from workers.delivery.policy import intake_problem
from workers.delivery.progress_push import ProgressTarget
from workers.runtime.checkpointing import GUARD_KEY, CheckpointGuard
from workers.runtime.lock import holding_job, thread_lock
from workers.settings import Settings

log = logging.getLogger(__name__)
tracer = trace.get_tracer("crag.workers")

MAX_CLOCK_SKEW_S = 300
"""How far ahead of the worker's clock a job's ``submitted_at`` may be, seconds: a later
one would put it ahead of its thread's line and past every deadline and retention."""


@dataclass(frozen=True)
class Result:
    """Where a job stands after :func:`answer_job`.

    ``outcome`` is its stored outcome, and ``fresh`` says whether this call produced it
    (False: it existed). ``outcome`` is ``None`` while the job waits for its turn on a busy
    thread; ``wait_s`` then says when to look again (it is woken sooner by the job before it).
    """

    outcome: OutcomeRecord | None
    fresh: bool
    wait_s: float = 0.0


def authenticate(tenant: Tenant, job: Job, body: dict[str, Any], known: bool) -> None:
    """Accept a job only if its tenant is active and signed it (:mod:`workers.contracts.signing`).

    A job already registered (``known``) is a copy the fleet re-sent itself (waiting for
    its turn, woken, retried); its content is checked against the stored job by
    :func:`answer_job`.

    Raises:
        PermanentJobError: Disabled tenant, missing, forged or stale signature.
    """
    if known:
        return
    if tenant.status != "active":
        raise PermanentJobError(
            f"tenant {job.tenant_id!r} is {tenant.status}; new jobs are refused",
            job_id=job.job_id,
            tenant_id=job.tenant_id,
        )
    verify_job(body, tenant.submission_key, job.tenant_id)


def answer_job(
    job: Job,
    ctx: JobContext,
    signed: dict[str, Any] | None = None,
    registered_only: bool = False,
) -> Result:
    """Answer ``job`` once, in its turn on its thread; a job_id seen before returns its outcome.

    Jobs on one thread take turns in ``submitted_at`` order (the jobs table is the line,
    and the thread's Redis line, :mod:`workers.contracts.line`, holds jobs seen while Postgres was
    away): a job runs only when it is its thread's oldest unfinished job in both *and* it
    takes the thread's lock. Otherwise it returns at once with ``outcome=None``, so waiting holds no
    worker slot. A job past its deadline ends with the apology without waiting its turn.

    Transactions (each short; none is open during a model call):

    1. Intake: the tenant, the signature, the webhook URL, a finished duplicate, the
       thread's owner, the job's row and the thread's head, in one transaction. A job
       registered before (a copy the fleet re-sent) skips the signature and the thread's
       owner, both checked when it was registered: 4 statements, 6 for a new job. (A job
       already past its deadline stores its apology in one more.)
    2. Under the thread lock: the next fencing token, a finished duplicate again, the run
       started; committed before the graph runs, so the fencing trigger sees the token.
    3. The graph: the checkpointer writes one checkpoint per super-step on its own pool
       (``durability="sync"``), each refused by Postgres if a newer run holds the thread;
       a web query's egress row is committed on its own before the query leaves.
    4. The outcome (the outbox row), under a row lock on the thread that checks the fence.

    The Redis line is joined before 1 and left after 4; delivery happens after, in the
    task, outside the lock.

    Args:
        job: The parsed job.
        ctx: The core's context (:class:`workers.core.context.JobContext`).
        signed: The job as received, to verify its signature (:func:`authenticate`)
            before anything else; ``None`` only for callers inside the fleet (tests,
            benchmarks) that built the job themselves.
        registered_only: Run the job only if it is registered (a caller inside the fleet
            rebuilding it from its row, :func:`workers.celery.tasks.drain_thread`): one
            deleted meanwhile returns ``outcome=None``, left to its own message.

    Raises:
        PermanentJobError: The tenant is not registered or not active, the signature is
            missing, forged or stale, the webhook URL is not allowed or
            resolves to a private address (:mod:`workers.delivery.policy`), or the job_id
            was already used for a different question or thread (an idempotency key must
            not be reused).
        LockLost: The lock or the fence was lost during the run; nothing was stored.
    """
    s = ctx.settings
    # Before Postgres: the thread's Redis line keeps submission order through its outages.
    join_line(ctx.redis, job.tenant_id, job.thread_id, job.job_id, job.submitted_at)
    with transaction(ctx.sessions) as session:
        tenant = repo.get_tenant(session, job.tenant_id)
        if tenant is None:
            raise PermanentJobError(
                f"unknown tenant {job.tenant_id!r}", job_id=job.job_id, tenant_id=job.tenant_id
            )
        known = repo.get_job(session, job.tenant_id, job.job_id)
        if known is None and registered_only:
            return Result(None, fresh=False, wait_s=s.thread_poll_s)
        if signed is not None:
            authenticate(tenant, job, signed, known is not None)
        policy = TenantPolicy.of(tenant)
        for name, url in (("webhook_url", job.webhook_url), ("progress_url", job.progress_url)):
            problem = (
                intake_problem(str(url), tenant.webhook_allowlist, field=name) if url else None
            )
            if problem:
                raise PermanentJobError(problem, job_id=job.job_id, tenant_id=job.tenant_id)
        progress_to = (
            ProgressTarget(str(job.progress_url), tenant.webhook_secret, tenant.webhook_allowlist)
            if job.progress_url
            else None
        )
        done = _finished(session, job)
        if done is not None:
            return Result(done, fresh=False)
        record = known or _register(session, job)
        _check_same_job(record, job)
        head = repo.next_in_line(session, job.tenant_id, job.thread_id)
    # The first sighting fixes the job's place in line and its deadline.
    job = job.model_copy(update={"submitted_at": record.submitted_at})
    deadline = deadline_of(job, s.job_deadline_s)
    if time.time() >= deadline:
        late = apology(job, s.apology, {}, deadline - job.submitted_at.timestamp())
        return _store(ctx, job, late)
    reject = job.options.multitask == "reject"
    busy = f"thread {job.thread_id!r} is busy with another job"
    ended = partial(has_ended, ctx, job.tenant_id)
    if (
        head is None
        or head.job_id != job.job_id
        or ahead_of(ctx.redis, job.tenant_id, job.thread_id, job.job_id, job.submitted_at, ended)
    ):
        return _rejected(ctx, job, busy) if reject else _wait(s, deadline)
    with ExitStack() as stack:
        try:
            held = stack.enter_context(
                thread_lock(
                    ctx.redis,
                    job.tenant_id,
                    job.thread_id,
                    ttl_s=s.lock_ttl_s,
                    owner=job.job_id,
                    finished=ended,
                )
            )
        except LockTimeout:
            # Busy with this very job (a copy of it run elsewhere) is not busy: that run
            # answers it, and this copy will find the outcome.
            if reject and not _runs_elsewhere(ctx, job):
                return _rejected(ctx, job, busy)
            return _wait(s, deadline)
        with transaction(ctx.sessions) as session:
            fence = repo.claim_fence(session, job)
            # Checked again under the lock: a duplicate may have finished meanwhile.
            done = _finished(session, job)
            if done is not None:
                return Result(done, fresh=False)
            repo.start_job(session, job)
        body = run_graph(job, ctx, fence, policy, guard=held, progress_to=progress_to)
        held.check()  # a worker that lost its lock must not publish
        with transaction(ctx.sessions) as session:
            repo.check_fence(session, job.tenant_id, job.thread_id, fence)
            stored, fresh = repo.save_outcome(
                session,
                body,
                webhook_id(job.tenant_id, job.job_id),
                has_webhook=job.webhook_url is not None,
            )
    leave_line(ctx.redis, job.tenant_id, job.thread_id, job.job_id)
    return Result(stored, fresh=fresh)


def _runs_elsewhere(ctx: JobContext, job: Job) -> bool:
    """Whether the thread's lock is held by a run of this same job (another copy of it)."""
    return holding_job(ctx.redis, job.tenant_id, job.thread_id) == job.job_id


def _register(session: Session, job: Job) -> JobRecord:
    """Register a job first seen: its thread must be its tenant's, its time not ahead.

    Raises:
        PermanentJobError: The thread belongs to another tenant, or ``submitted_at`` is more
            than :data:`MAX_CLOCK_SKEW_S` ahead of this worker's clock.
    """
    if repo.claim_thread(session, job) != job.tenant_id:
        raise PermanentJobError(
            f"thread {job.thread_id!r} belongs to another tenant",
            job_id=job.job_id,
            tenant_id=job.tenant_id,
        )
    if job.submitted_at.timestamp() > time.time() + MAX_CLOCK_SKEW_S:
        raise PermanentJobError(
            f"submitted_at {job.submitted_at.isoformat()} is in the future "
            f"(more than {MAX_CLOCK_SKEW_S}s ahead of the worker's clock)",
            job_id=job.job_id,
            tenant_id=job.tenant_id,
        )
    return repo.register_job(session, job)


def has_ended(ctx: JobContext, tenant_id: str, job_id: str) -> bool:
    """Whether ``job_id`` is over: its outcome is stored or it was dead-lettered."""
    with transaction(ctx.sessions) as session:
        return repo.has_ended(session, tenant_id, job_id)


def deadline_of(job: Job, default_s: float) -> float:
    """The job's deadline, Unix seconds: submission plus its own or the default allowance."""
    return job.submitted_at.timestamp() + (job.options.deadline_s or default_s)


def _wait(s: Settings, deadline: float) -> Result:
    """Not this job's turn: look again after the poll interval, or at the deadline."""
    return Result(None, fresh=False, wait_s=max(0.05, min(s.thread_poll_s, deadline - time.time())))


def _rejected(ctx: JobContext, job: Job, busy: str) -> Result:
    """Double-texting with the ``reject`` strategy: answer ``rejected_busy`` at once."""
    rejected = record_failure(job, ctx, busy, reason="rejected_busy")
    return Result(rejected or _stored(ctx, job), fresh=rejected is not None)


def _store(ctx: JobContext, job: Job, body: OutcomeBody) -> Result:
    """Store an outcome reached without running the graph (first writer wins)."""
    with transaction(ctx.sessions) as session:
        repo.start_job(session, job)
        record, fresh = repo.save_outcome(
            session, body, webhook_id(job.tenant_id, job.job_id), job.webhook_url is not None
        )
    leave_line(ctx.redis, job.tenant_id, job.thread_id, job.job_id)
    return Result(record, fresh=fresh)


def _stored(ctx: JobContext, job: Job) -> OutcomeRecord:
    with transaction(ctx.sessions) as session:
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


def run_graph(
    job: Job,
    ctx: JobContext,
    fence: int | None = None,
    policy: TenantPolicy | None = None,
    guard: CheckpointGuard | None = None,
    progress_to: ProgressTarget | None = None,
) -> OutcomeBody:
    """Run one turn of the graph on the job's thread and shape its outcome.

    A run of the same job that a killed worker left unfinished on the thread resumes from
    its last checkpoint (durable execution: finished nodes do not run again). The run
    streams super-step by super-step and stops at the first step that ends past
    the job's deadline (``submitted_at`` + ``deadline_s``), which then ends with the apology
    outcome (``failed``, ``deadline_exceeded``, ``handoff``), so the user always gets an
    answer, an abstention or an apology in time. Model timeouts bound a single step. When
    every model in the chain is down the outcome is the same apology, reason
    ``model_unavailable``.

    Args:
        job: The job (its ``submitted_at`` is the one first recorded).
        ctx: The core's context (:class:`workers.core.context.JobContext`).
        fence: The thread's fencing token from :func:`repository.claim_fence`; every
            checkpoint of the run carries it and Postgres refuses it once a newer run holds
            the thread (:mod:`workers.db.fencing`).
        policy: The tenant's policy (web search, domains, deny terms); default: open.
        guard: Checked before every checkpoint write (the thread's :class:`HeldLock`): a
            run that lost its lock stops before it writes again, so its retry resumes the
            same turn from the last checkpoint written under the lock.
        progress_to: The job's ``progress_url`` with the tenant's secret: each progress
            event is also posted there, off the job's thread (best effort).

    Raises:
        LockLost: Postgres refused a checkpoint because a newer run holds the thread, or
            ``guard`` says the lock was lost.
    """
    deps = ctx.deps_for(job, policy)
    metadata: dict[str, Any] = {"job_id": job.job_id, "tenant_id": job.tenant_id}
    if fence is not None:
        metadata["crag_fence"] = fence
    config: Any = {
        "configurable": {"thread_id": job.graph_thread_id, GUARD_KEY: guard},
        "recursion_limit": RECURSION_LIMIT,
        "metadata": metadata,
    }
    deadline = deadline_of(job, ctx.settings.job_deadline_s)
    started = time.perf_counter()
    state: dict[str, Any] = {}
    with tracer.start_as_current_span("crag.job") as span:
        span.set_attribute("crag.job_id", job.job_id)
        span.set_attribute("crag.tenant_id", job.tenant_id)
        span.set_attribute("crag.thread_id", job.thread_id)
        if ctx.settings.trace_question:  # debug only, and never the raw text
            redacted = ctx.redactor.redact(job.question, policy.deny_terms if policy else ())
            span.set_attribute("crag.question_redacted", redacted.search_text)
        # A run of this job that a dead worker left half-done resumes from its last
        # checkpoint (input None) instead of starting the turn over; one that ran to its
        # end but could not store the outcome has its state as the result (running again
        # would add a second turn). See :mod:`workers.core.resume`.
        snapshot = ctx.graph.get_state(config)
        stage = turn_stage(snapshot, job.job_id)
        resumed, ended = stage == "resume", stage == "ended"
        span.set_attribute("crag.resumed", resumed or ended)
        if resumed:
            due = snapshot.next or tuple(task.name for task in snapshot.tasks)
            log.info("job %s resumes at %s", job.job_id, ", ".join(due))
        if ended:
            log.info("job %s: its turn had ended; storing that outcome", job.job_id)
            state = dict(snapshot.values)
        elif time.time() < deadline:
            push = (
                partial(ctx.pusher.push, progress_to)
                if progress_to is not None and ctx.pusher is not None
                else None
            )
            progress = ProgressLog(
                ctx.redis, job.tenant_id, job.job_id, job.thread_id, ctx.cipher, push
            )
            steps = ctx.graph.stream(
                None if resumed else {"question": job.question},
                config,
                context=deps,
                stream_mode=["values", "tasks", "updates"],
                # Each super-step's checkpoint is written before the next step starts:
                # LangGraph's default ("async") writes it while the next step runs, so a
                # worker killed meanwhile lost the steps it had finished and ran them again
                # (a kill 50 ms into a run on a loaded host restarted the turn from scratch).
                durability="sync",
            )
            try:
                with closing(steps):
                    for mode, chunk in steps:
                        if mode == "tasks":
                            progress.task_event(chunk)
                            continue
                        if mode == "updates":
                            progress.update_event(chunk)
                            continue
                        state = chunk  # the full state after each super-step
                        progress.values_event(state)
                        if time.time() >= deadline:
                            break
            except psycopg.errors.RaiseException as exc:
                if not fencing.is_stale_fence(exc):
                    raise
                raise LockLost(str(exc), job_id=job.job_id, tenant_id=job.tenant_id) from exc
        trace_id = format(span.get_span_context().trace_id, "032x")
        latency_ms = int((time.perf_counter() - started) * 1000)
        outcome = state.get("outcome")
        reason = outcome["reason"] if outcome else "deadline_exceeded"
        span.set_attribute("crag.outcome", reason if not outcome else outcome["status"])
        if not outcome or reason == "model_unavailable":
            allowed_s = deadline - job.submitted_at.timestamp()
            body = apology(job, ctx.settings.apology, state, allowed_s, reason)
            return body.model_copy(update={"latency_ms": latency_ms, "trace_id": trace_id})
    return outcome_body(job, state, latency_ms, trace_id).model_copy(
        update={"resumed": resumed or ended}
    )


def record_failure(
    job: Job, ctx: JobContext, detail: str, reason: str = "internal_error"
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
    result = _store(ctx, job, body)
    return result.outcome if result.fresh else None
