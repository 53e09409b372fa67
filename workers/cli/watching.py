"""``crag watch`` and ``crag ask --follow``: a job's progress events, printed as they come.

One line per event (the grade chips, the verdicts, the decision), or NDJSON with
``--json`` (one event object per line, as :func:`workers.core.progress.read_events` gives
it). Following ends at the job's ``outcome`` or ``dead_letter`` event, or at the timeout.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from langgraph.checkpoint.serde.base import CipherProtocol
from redis import Redis

from workers.core.events import FINAL_KINDS
from workers.core.progress import read_events
from workers.core.timeline import event_line


def follow(
    redis: Redis,
    tenant_id: str,
    job_id: str,
    *,
    timeout_s: float,
    as_json: bool,
    write: Callable[[str], None],
    cipher: CipherProtocol | None = None,
) -> dict[str, Any] | None:
    """Print a job's events from its start until its final one; returns that final event.

    A job that ended before the call is printed whole (the stream is kept for an hour).
    ``cipher``: the checkpoint key ring the payloads are encrypted under (``None``: plain).
    Returns ``None`` if no final event came within ``timeout_s`` seconds.

    Raises:
        redis.exceptions.RedisError: Redis could not be read.
    """
    deadline = time.monotonic() + timeout_s
    after, started_at = "0-0", None
    while time.monotonic() < deadline:
        block = int(max(1, min(1000, (deadline - time.monotonic()) * 1000)))
        for event in read_events(redis, tenant_id, job_id, after, block_ms=block, cipher=cipher):
            after = event["id"]
            started_at = started_at or event["at"]
            write(
                json.dumps(event, ensure_ascii=False) if as_json else event_line(event, started_at)
            )
            if event["kind"] in FINAL_KINDS:
                return event
    return None
