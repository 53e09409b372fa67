"""A job's progress events POSTed to its ``progress_url`` as they happen, signed like webhooks.

Best effort by design, and never in the job's way: the runner hands each event to a
process-wide :class:`ProgressPusher`, whose one thread posts them in order (so a receiver
sees a job's events in the order they happened) and drops what it cannot post. The job's
Redis stream (:mod:`workers.core.progress`) stays the complete record, and the outcome
itself goes to the webhook, with retries; the last graph event a ``progress_url`` gets is
``decision``.

Each POST is Standard Webhooks signed with the tenant's webhook secret
(:func:`workers.delivery.attempt.signed_headers`), ``webhook-id`` is
``progress_<job_id>_<stream entry id>`` (stable, so a receiver can de-duplicate), and the
address is checked before every request as the webhook's is (a host outside the tenant's
allowlist must resolve to public addresses only).

Body::

    {"type": "progress", "job_id": "…", "tenant_id": "…", "event": {"id", "job_id",
     "thread_id", "kind", "node", "at", "data"}}
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import httpx

from workers.delivery.attempt import post_signed

log = logging.getLogger(__name__)

QUEUE_MAX = 2000
"""Events waiting to be posted per process; beyond it new ones are dropped (and logged)."""


@dataclass(frozen=True)
class ProgressTarget:
    """Where and how a job's events are posted: its URL, the tenant's secret and allowlist."""

    url: str
    secret: str
    allowlist: Collection[str] = ()


class ProgressPusher:
    """Posts events from a FIFO queue on one daemon thread; :meth:`push` never blocks.

    Args:
        client: The HTTP client to post with.
        timeout_s: Whole-request timeout of one POST, seconds (kept short: a slow receiver
            only delays the events behind it, never the job).
    """

    def __init__(self, client: httpx.Client, timeout_s: float = 3.0) -> None:
        self._client = client
        self._timeout_s = timeout_s
        self._queue: queue.Queue[tuple[ProgressTarget, dict[str, Any]] | None] = queue.Queue(
            QUEUE_MAX
        )
        self.dropped = 0
        """Events not posted: the queue was full, or the receiver refused or was away."""
        self._thread = threading.Thread(target=self._run, name="crag-progress-push", daemon=True)
        self._thread.start()

    def push(self, target: ProgressTarget, body: dict[str, Any]) -> None:
        """Queue one event body for ``target``; drops it (and counts) if the queue is full."""
        try:
            self._queue.put_nowait((target, body))
        except queue.Full:
            self.dropped += 1
            log.warning("progress push queue full; dropped an event of job %s", body["job_id"])

    def drain(self, timeout_s: float = 5.0) -> bool:
        """Wait until every queued event was posted or dropped; ``False`` on timeout."""
        done = threading.Event()

        def waiter() -> None:
            self._queue.join()
            done.set()

        threading.Thread(target=waiter, daemon=True).start()
        return done.wait(timeout_s)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is not None:
                    self._post(*item)
            except Exception:  # one bad event must not stop the thread
                log.exception("progress push failed")
            finally:
                self._queue.task_done()

    def _post(self, target: ProgressTarget, body: dict[str, Any]) -> None:
        msg_id = f"progress_{body['job_id']}_{body['event']['id']}"
        attempt = post_signed(
            self._client,
            target.url,
            target.secret,
            msg_id,
            body,
            self._timeout_s,
            allowlist=target.allowlist,
        )
        if not attempt.ok:
            self.dropped += 1
            log.info(
                "progress event %s not delivered to its progress_url: %s",
                msg_id,
                attempt.error or attempt.http_status,
            )


@lru_cache(maxsize=4)
def pusher_for(client: httpx.Client) -> ProgressPusher:
    """The process's pusher over ``client`` (one thread per process and client)."""
    return ProgressPusher(client)
