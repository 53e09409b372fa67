"""A job's trajectory in words: one human line per progress event.

``crag watch``, ``crag ask --follow``, the demo and the web console (:mod:`workers.console`)
all show a job's run with :func:`event_line`, so the terminal and the browser tell the same
story for the same job. The events are those of :mod:`workers.core.events`.
"""

from __future__ import annotations

import json
from typing import Any


def event_line(event: dict[str, Any], started_at: float) -> str:
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
