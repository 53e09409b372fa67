"""A job's progress events: a short Redis stream per job, for people who wait on it.

A CPU model takes a minute or more per question; without this a job is silent until its
outcome. The runner appends typed events as the graph runs (:mod:`workers.core.events`:
a node started, the route and why, each chunk's grade, the rewritten query, the redacted
web query, the verdicts, the decision, the usage so far) and, once the outcome is stored,
the final ``outcome`` event, the only one that carries the answer. Readers (``crag watch``,
``crag ask --follow``, ``crag demo``, operators with ``redis-cli XRANGE``) follow it.

Key ``crag:progress:{tenant_id}:{job_id}``; each entry has ``kind``, ``node``, ``thread``,
``at`` (unix seconds) and ``data`` (JSON). The stream is capped at :data:`MAXLEN` entries and
expires :data:`TTL_S` after its last entry, so a late reader still sees the whole run.
Progress is best effort: a Redis error while writing it is logged and never fails the job.

**Payloads are encrypted like checkpoints.** ``data`` holds model-written reasons, rewritten
queries and, in the final event, the answer: the same kind of text the checkpoints hold. With
checkpoint encryption on (the default) it is AES-256-GCM under the checkpoint keys
(:func:`workers.runtime.checkpointing.key_ring_from_settings`), and the entry carries ``enc``
(the key's name) instead of plain JSON; ``kind``, ``node``, ``thread`` and ``at`` stay
readable, so ``redis-cli XRANGE`` still shows the shape of a run. Readers pass the same ring.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from langgraph.checkpoint.serde.base import CipherProtocol
from redis import Redis
from redis.exceptions import RedisError

from workers.contracts.names import outcome_channel
from workers.core.events import Event, Usage, events_of_update, grades_summary, outcome_event
from workers.db.models import OutcomeRecord

log = logging.getLogger(__name__)

MAXLEN = 1000
"""Entries kept per job (a turn at its worst case runs ~60 tasks, ~4 events each)."""

TTL_S = 3600
"""Seconds a job's stream is kept after its last entry."""


def progress_key(tenant_id: str, job_id: str) -> str:
    """The Redis stream of one job's progress."""
    return f"crag:progress:{tenant_id}:{job_id}"


class ProgressLocked(RuntimeError):
    """A job's events are encrypted and the reader has no (or not the right) key."""


class ProgressLog:
    """Writes a job's events to its stream (one pipelined round trip per batch).

    With ``cipher`` (the checkpoint key ring) each payload is encrypted before it leaves.
    With ``push``, each event written is also handed to it (in plain form, with its stream
    id) for the job's ``progress_url`` (:mod:`workers.delivery.progress_push`).
    """

    def __init__(
        self,
        redis: Redis,
        tenant_id: str,
        job_id: str,
        thread_id: str = "",
        cipher: CipherProtocol | None = None,
        push: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self._redis = redis
        self._cipher = cipher
        self._push = push
        self._tenant = tenant_id
        self._job = job_id
        self._key = progress_key(tenant_id, job_id)
        self._thread = thread_id
        self._usage = Usage()
        self._graded_round = False

    def task_event(self, event: dict[str, Any]) -> None:
        """Record a LangGraph ``tasks`` stream event; only starts (they carry ``input``)."""
        if "input" in event:
            self.emit([("node", {})], str(event["name"]))

    def update_event(self, chunk: dict[str, Any]) -> None:
        """Record the events of a LangGraph ``updates`` chunk (``{node: update}``)."""
        for node, update in chunk.items():
            if node == "assess_grades":
                self._graded_round = True
            self.emit(events_of_update(node, update, self._usage), node)

    def values_event(self, state: dict[str, Any]) -> None:
        """After a super-step: the ``grades`` summary once a round's grades were joined."""
        if self._graded_round:
            self._graded_round = False
            summary = grades_summary(state)
            if summary is not None:
                self.emit([summary], "assess_grades")

    def emit(self, events: list[Event], node: str = "") -> None:
        """Append ``events`` (written by ``node``) to the job's stream, best effort."""
        if not events:
            return
        at = f"{time.time():.3f}"
        try:
            pipe = self._redis.pipeline(transaction=False)
            for kind, data in events:
                fields: dict[str, Any] = {"kind": kind, "node": node, "thread": self._thread}
                payload = json.dumps(data, default=str).encode()
                if self._cipher is not None:
                    fields["enc"], payload = self._cipher.encrypt(payload)
                entry = fields | {"at": at, "data": payload}
                pipe.xadd(self._key, entry, maxlen=MAXLEN, approximate=True)  # type: ignore[arg-type]
            pipe.expire(self._key, TTL_S)
            ids = pipe.execute()[: len(events)]
        except RedisError as exc:
            log.warning("progress for %s not recorded: %s", self._key, exc)
            return
        if self._push is not None:
            for entry_id, (kind, data) in zip(ids, events, strict=True):
                event = {
                    "id": _text(entry_id),
                    "job_id": self._job,
                    "thread_id": self._thread,
                    "kind": kind,
                    "node": node,
                    "at": float(at),
                    "data": data,
                }
                body = {"type": "progress", "job_id": self._job, "tenant_id": self._tenant}
                self._push(body | {"event": event})


def announce_outcome(
    redis: Redis, outcome: OutcomeRecord, cipher: CipherProtocol | None = None
) -> None:
    """Tell the job's waiters it ended: the final ``outcome`` event, then the channel.

    The event carries the stored body's answer and citations (the only event that does:
    the outcome is stored after verification). Publishing on the outcome channel wakes
    ``crag ask --wait`` and other waiters.

    Raises:
        redis.exceptions.RedisError: The channel could not be published to (the event is
            best effort, the publish is not: the task retries).
    """
    thread = outcome.body.get("thread_id", "")
    log_ = ProgressLog(redis, outcome.tenant_id, outcome.job_id, thread, cipher)
    log_.emit([outcome_event(outcome.body)], "outcome")
    redis.publish(outcome_channel(outcome.tenant_id, outcome.job_id), outcome.status)


def read_events(
    redis: Redis,
    tenant_id: str,
    job_id: str,
    after: str = "0-0",
    block_ms: int | None = None,
    cipher: CipherProtocol | None = None,
) -> list[dict[str, Any]]:
    """Events of a job's stream after id ``after``, as dicts.

    Each is ``{"id", "job_id", "thread_id", "kind", "node", "at", "data"}`` (``at`` in unix
    seconds); see :mod:`workers.core.events` for the kinds and their ``data``. ``cipher``
    is the checkpoint key ring the events were written under (``None``: plain payloads).

    Raises:
        redis.exceptions.RedisError: Redis could not be read.
        ProgressLocked: An event is encrypted and ``cipher`` is ``None`` or lacks its key.
    """
    reply: Any = redis.xread({progress_key(tenant_id, job_id): after}, block=block_ms)
    events: list[dict[str, Any]] = []
    for _key, items in reply or []:
        for entry_id, fields in items:
            f = {_text(k): v for k, v in fields.items()}
            f = {k: v if k == "data" else _text(v) for k, v in f.items()}
            data = _payload(f.get("enc"), f.get("data"), cipher)
            events.append(
                {
                    "id": _text(entry_id),
                    "job_id": job_id,
                    "thread_id": f.get("thread", ""),
                    "kind": f.get("kind", "node"),
                    "node": f.get("node", ""),
                    "at": float(f["at"]),
                    "data": data,
                }
            )
    return events


def first_event_at(redis: Redis, tenant_id: str, job_id: str) -> float | None:
    """When the job's first kept event was written (unix seconds), or ``None`` if none is.

    Raises:
        redis.exceptions.RedisError: Redis could not be read.
    """
    first: Any = redis.xrange(progress_key(tenant_id, job_id), count=1)
    for _entry_id, fields in first or []:
        return float(_text(fields.get(b"at") or fields.get("at") or 0))
    return None


def _payload(enc: str | None, data: Any, cipher: CipherProtocol | None) -> dict[str, Any]:
    raw = data.encode() if isinstance(data, str) else (data or b"{}")
    if enc is not None:
        if cipher is None:
            raise ProgressLocked(
                "this job's progress events are encrypted with the checkpoint keys; give the "
                "reader CRAG_CHECKPOINT_KEY_FILE or CRAG_CHECKPOINT_KEYS (as the workers have)"
            )
        try:
            raw = cipher.decrypt(enc, raw)
        except Exception as exc:  # a key no longer configured, or an altered entry
            raise ProgressLocked(f"a progress event could not be decrypted: {exc}") from exc
    parsed: dict[str, Any] = json.loads(raw)
    return parsed


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
