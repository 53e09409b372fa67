"""A thread's checkpoints: its history, and a replay or fork of its run into a new thread.

Time travel as LangGraph describes it (``get_state_history``; resuming from a past
checkpoint), with two rules of our own:

- **Never the original thread.** A replay copies the chosen checkpoint (its state, through
  the same encrypting checkpointer; not the writes of the step after it, which runs again)
  to a new thread named ``<thread>::replay-<hex>`` (a fork: ``::fork-``) and runs on from
  there, exactly as a job resumes after a crash (:func:`workers.core.runner.run_graph`).
  The original's checkpoints, jobs and outcomes are untouched; the copy stores no outcome
  row and posts no webhook.
- **The tenant's own, kept like the original.** Only a thread registered to the tenant can
  be read or copied; the copy is registered to the same tenant, so retention and
  ``crag forget`` delete it with its original
  (:func:`workers.core.retention.copies_of`).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from pipeline.state import CragState
from workers.contracts.jobs import Job, OutcomeBody, new_job
from workers.core.context import JobContext
from workers.core.retention import COPY_MARK
from workers.core.runner import run_graph
from workers.core.tenants import TenantPolicy
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.db.models import ThreadRecord


class ReplayError(ValueError):
    """A history, replay or fork of something that is not there (the message says what)."""


@dataclass(frozen=True)
class CheckpointRow:
    """One checkpoint of a thread, oldest first in :func:`history`.

    Attributes:
        checkpoint_id: LangGraph's id (pass it to ``--from``).
        step: The super-step (``-1`` is the turn's input).
        source: ``input``, ``loop`` (a super-step), ``update`` or ``fork``.
        created_at: ISO 8601 time of the write.
        wrote: The nodes whose super-step produced it (empty for a turn's input).
        next: The nodes that run after it (empty at the end of a turn).
        changed: State keys whose value differs from the checkpoint before it.
        job_id: The job whose run wrote it.
    """

    checkpoint_id: str
    step: int
    source: str
    created_at: str
    wrote: tuple[str, ...]
    next: tuple[str, ...]
    changed: tuple[str, ...]
    job_id: str | None


@dataclass(frozen=True)
class Replay:
    """What a replay or fork produced: the new thread and its run's outcome body."""

    thread_id: str
    job_id: str
    outcome: OutcomeBody


def graph_thread_of(session: Session, tenant_id: str, thread_id: str) -> str:
    """The checkpointer's thread id of the tenant's thread.

    Raises:
        ReplayError: The tenant has no such thread (never used, another tenant's, or
            deleted by retention or ``crag forget``).
    """
    record = session.get(ThreadRecord, (tenant_id, thread_id))
    if record is None:
        raise ReplayError(
            f"no thread {thread_id!r} for tenant {tenant_id!r}: it was never used by this "
            "tenant, or it was deleted by retention or `crag forget`"
        )
    return record.checkpoint_thread_id


def history(
    sessions: sessionmaker[Session], graph: Any, tenant_id: str, thread_id: str
) -> list[CheckpointRow]:
    """The thread's checkpoints, oldest first, each with what changed in it.

    Args:
        sessions: Opens the read of the thread's row.
        graph: The compiled graph with the (encrypting) checkpointer.
        tenant_id: The tenant asking.
        thread_id: The tenant's thread.

    Raises:
        ReplayError: No such thread for the tenant, or it has no checkpoints.
    """
    with transaction(sessions) as session:
        graph_thread = graph_thread_of(session, tenant_id, thread_id)
    snapshots = list(graph.get_state_history(_config(graph_thread)))
    if not snapshots:
        raise ReplayError(f"thread {thread_id!r} of tenant {tenant_id!r} has no checkpoints")
    rows: list[CheckpointRow] = []
    before: Mapping[str, Any] = {}
    ran: tuple[str, ...] = ()
    for snap in reversed(snapshots):
        values = snap.values or {}
        changed = tuple(
            sorted(k for k in values.keys() | before.keys() if _set(values, k) != _set(before, k))
        )
        meta = snap.metadata or {}
        rows.append(
            CheckpointRow(
                checkpoint_id=snap.config["configurable"]["checkpoint_id"],
                step=int(meta.get("step", -1)),
                source=str(meta.get("source", "")),
                created_at=str(snap.created_at or ""),
                wrote=ran if meta.get("source") == "loop" else (),
                next=tuple(snap.next),
                changed=changed,
                job_id=meta.get("job_id"),
            )
        )
        before, ran = values, tuple(snap.next)
    return rows


def state_changes(assignments: Mapping[str, str]) -> dict[str, Any]:
    """``--set key=value`` pairs as state values (JSON where the value parses as JSON).

    Raises:
        ReplayError: A key is not a field of :class:`pipeline.state.CragState`.
    """
    import json

    fields = set(CragState.__annotations__)
    changes: dict[str, Any] = {}
    for key, raw in assignments.items():
        if key not in fields:
            raise ReplayError(f"{key!r} is not a state field; fields: {', '.join(sorted(fields))}")
        try:
            changes[key] = json.loads(raw)
        except ValueError:
            changes[key] = raw
    return changes


def replay(
    ctx: JobContext,
    tenant_id: str,
    thread_id: str,
    checkpoint_id: str,
    changes: Mapping[str, Any] | None = None,
    on_start: Callable[[str], None] | None = None,
) -> Replay:
    """Copy a checkpoint of the tenant's thread to a new thread and run on from it.

    With ``changes`` it is a fork: the copied checkpoint's state gets those values first
    (e.g. another ``query``). The run streams its progress events under its own job id
    (``crag watch`` shows them) and returns its outcome; nothing is stored as an outcome or
    delivered. Web search follows the tenant's policy and the original job's options.
    ``on_start`` is called with the copy's job id just before it runs (to follow its events).

    Raises:
        ReplayError: No such thread for the tenant, no such checkpoint on it, or the
            checkpoint holds no question (a thread's first, empty checkpoint).
        workers.contracts.errors.LockLost: Never for a fresh copy (no other run holds it).
    """
    saver = ctx.graph.checkpointer
    with transaction(ctx.sessions) as session:
        graph_thread = graph_thread_of(session, tenant_id, thread_id)
        tenant = repo.get_tenant(session, tenant_id)
        assert tenant is not None  # the thread's row references it
        policy = TenantPolicy.of(tenant)
    found = saver.get_tuple(_config(graph_thread, checkpoint_id))
    if found is None:
        raise ReplayError(
            f"no checkpoint {checkpoint_id!r} on thread {thread_id!r}; "
            "`crag thread history` lists them"
        )
    question = (found.checkpoint.get("channel_values") or {}).get("question")
    if not question:
        raise ReplayError(f"checkpoint {checkpoint_id!r} holds no question yet; pick a later one")
    kind = "fork" if changes else "replay"
    suffix = f"{COPY_MARK}{kind}-{uuid.uuid4().hex[:6]}"
    job = _copy_job(
        ctx,
        tenant_id,
        f"{thread_id[: 128 - len(suffix)]}{suffix}",
        question,
        found.metadata.get("job_id"),
    )
    with transaction(ctx.sessions) as session:
        repo.claim_thread(session, job)  # the copy is the tenant's, kept like the original
    checkpoint = copy.deepcopy(found.checkpoint)
    versions = checkpoint["channel_versions"]
    for key, value in (changes or {}).items():
        checkpoint["channel_values"][key] = value
        versions[key] = saver.get_next_version(versions.get(key), None)
    metadata = {k: v for k, v in found.metadata.items() if k != "crag_fence"}
    metadata |= {
        "source": "fork",
        "job_id": job.job_id,
        "forked_from": f"{thread_id}@{checkpoint_id}",
    }
    # Not its pending writes: they are the results of the step after it, which a replay
    # runs again (with them the step would count as done).
    saver.put(_config(job.graph_thread_id), checkpoint, metadata, dict(versions))
    if on_start is not None:
        on_start(job.job_id)
    # The copy's last checkpoint is this job's, so the run resumes from it.
    return Replay(job.thread_id, job.job_id, run_graph(job, ctx, policy=policy))


def _copy_job(
    ctx: JobContext, tenant_id: str, thread_id: str, question: str, original: str | None
) -> Job:
    """The job a copy runs as: the original job's options where it is still known."""
    allow_web = False
    if original:
        with transaction(ctx.sessions) as session:
            record = repo.get_job(session, tenant_id, original)
            allow_web = bool(record and record.options.get("allow_web", True))
    return new_job(
        tenant_id, thread_id, question, allow_web=allow_web, job_id=f"replay-{uuid.uuid4()}"
    )


def _set(values: Mapping[str, Any], key: str) -> Any:
    """A state value as history compares it: an empty list, dict or text counts as unset."""
    value = values.get(key)
    return None if value in ([], {}, "") else value


def _config(graph_thread: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": graph_thread, "checkpoint_ns": ""}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}
