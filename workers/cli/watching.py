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

from redis import Redis

from workers.core.progress import read_events

FINAL = ("outcome", "dead_letter")


def render(event: dict[str, Any], started_at: float) -> str:
    """The human line(s) for ``event``: seconds since ``started_at`` (unix s), then what.

    Node starts are flush left; what a node found is indented under it.
    """
    d, kind = event["data"], event["kind"]
    head = f"{event['at'] - started_at:6.1f} s  "
    if kind == "node":
        return f"{head}{event['node']}"
    if kind == "route":
        return f"{head}  route {d['route']}: {d['reason']}"
    if kind == "retrieve":
        error = f" (failed: {d['error']})" if d.get("error") else ""
        return f"{head}  {d['source']} round {d['round']}: {d['found']} chunks{error}"
    if kind == "grade":
        chip = "✓" if d["relevant"] else "✗"
        return f"{head}  {chip} {d['score']:.2f} {d['locator']}: {d['reason']}"
    if kind == "grades":
        return f"{head}  kept {d['relevant']} of {d['total']} chunks"
    if kind == "rewrite":
        return f"{head}  rewritten query: {d['query']!r}"
    if kind == "web":
        if d.get("skipped"):
            return f"{head}  web round skipped: {d['skipped']}"
        return f"{head}  web query (minimised, redacted): {d['query']!r}"
    if kind == "generate":
        return f"{head}  attempt {d['attempt']}: {d['claims']} claims from {d['sources']} sources"
    if kind == "verdict":
        chips = " ".join("✓" if ok else "✗" for ok in d.get("claims") or [])
        return f"{head}  grounded: {d['grounded']}  resolves: {d['resolves']}" + (
            f"  claims: {chips}" if chips else ""
        )
    if kind == "decision":
        return f"{head}  decision: {d['status']}" + (f" ({d['reason']})" if d["reason"] else "")
    if kind == "usage":
        return (
            f"{head}  usage: {d['calls']} calls, {d['input_tokens']} prompt tokens "
            f"({d['cached_tokens']} cached), {d['output_tokens']} out"
        )
    if kind == "outcome":
        lines = [f"{head}outcome: {d['status']}" + (f" ({d['reason']})" if d["reason"] else "")]
        if d.get("answer"):
            lines.append(f"           {d['answer']}")
        lines += [f"           [{c['n']}] {c['title']} — {c['locator']}" for c in d["citations"]]
        return "\n".join(lines)
    if kind == "dead_letter":
        return f"{head}dead letter: {d['reason']}"
    return f"{head}{kind} {json.dumps(d)}"


def follow(
    redis: Redis,
    tenant_id: str,
    job_id: str,
    *,
    timeout_s: float,
    as_json: bool,
    write: Callable[[str], None],
) -> dict[str, Any] | None:
    """Print a job's events from its start until its final one; returns that final event.

    A job that ended before the call is printed whole (the stream is kept for an hour).
    Returns ``None`` if no final event came within ``timeout_s`` seconds.

    Raises:
        redis.exceptions.RedisError: Redis could not be read.
    """
    deadline = time.monotonic() + timeout_s
    after, started_at = "0-0", None
    while time.monotonic() < deadline:
        block = int(max(1, min(1000, (deadline - time.monotonic()) * 1000)))
        for event in read_events(redis, tenant_id, job_id, after, block_ms=block):
            after = event["id"]
            started_at = started_at or event["at"]
            write(json.dumps(event, ensure_ascii=False) if as_json else render(event, started_at))
            if event["kind"] in FINAL:
                return event
    return None
