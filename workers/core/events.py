"""Typed progress events, read off the graph's node updates as a job runs.

Each node's update (LangGraph's ``updates`` stream mode) becomes zero or more events, each a
``(kind, data)`` pair with a small JSON payload:

========== ===================================================== =========================
kind       data                                                  from node
========== ===================================================== =========================
node       ``{}`` (the node started)                             every node
route      ``route``, ``reason``                                 ``route_question``
retrieve   ``round``, ``source`` (index/web), ``found``,          ``retrieve``,
           ``error``                                              ``web_search``
grade      ``round``, ``id``, ``locator``, ``score``,             ``grade_chunk`` (one per
           ``relevant``, ``reason``                               chunk, graded on its own)
grades     ``round``, ``relevant``, ``total``                     ``assess_grades``
rewrite    ``query`` (the rewritten retrieval query)              ``rewrite_query``
web        ``query`` (the minimised and redacted query that      ``redact_query``
           leaves, or ``None``), ``skipped`` (why nothing left)
generate   ``attempt``, ``claims``, ``sources`` (counts only)     ``generate``
verdict    ``grounded``, ``resolves``, ``claims`` (per claim:     ``verify``
           supported or not, when the verifier judged them)
decision   ``status`` (answered/abstained), ``reason``            ``finalize``, ``abstain``
usage      ``calls``, ``input_tokens``, ``output_tokens``,        any node that called a
           ``cached_tokens`` (the turn so far)                    model
outcome    the stored outcome: ``status``, ``reason``,            the job's end (runner)
           ``detail``, ``answer``, ``citations``, cost, latency
========== ===================================================== =========================

**Generated text never appears before verification**: ``generate`` carries counts, not
the answer; ``verdict`` carries booleans, not the verifier's feedback (which quotes the
claims); ``decision`` carries the status, not the text. The answer is released only in
``outcome``, which is written after the outcome is stored, that is after the grounding
check passed (or as the abstention).
"""

from __future__ import annotations

from typing import Any, Literal

EventKind = Literal[
    "node",
    "route",
    "retrieve",
    "grade",
    "grades",
    "rewrite",
    "web",
    "generate",
    "verdict",
    "decision",
    "usage",
    "outcome",
    "dead_letter",
]
"""The kinds of progress event, in the order a turn can produce them."""

Event = tuple[EventKind, dict[str, Any]]

FINAL_KINDS: tuple[EventKind, ...] = ("outcome", "dead_letter")
"""The kinds that end a job's stream: nothing follows them."""


class Usage:
    """The turn's model calls and tokens so far, summed over node updates.

    The ``calls`` channel's reducer appends each node's calls (``[RESET, …]`` starts the
    turn over), so the running total is kept here from the updates alone.
    """

    def __init__(self) -> None:
        self.calls = self.input_tokens = self.output_tokens = self.cached_tokens = 0

    def add(self, calls: list[Any]) -> dict[str, int] | None:
        """Count an update's calls; returns the new totals, or ``None`` if it made none."""
        made = [c for c in calls if isinstance(c, dict)]
        if not made:
            return None
        for call in made:
            self.calls += 1
            self.input_tokens += int(call.get("input_tokens") or 0)
            self.output_tokens += int(call.get("output_tokens") or 0)
            self.cached_tokens += int(call.get("cached_tokens") or 0)
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cached_tokens": self.cached_tokens,
        }


def events_of_update(node: str, update: dict[str, Any] | None, usage: Usage) -> list[Event]:
    """The events one node's update makes (see the module table); never generated text.

    Args:
        node: The node that wrote ``update``.
        update: Its partial state update (``None`` when it wrote nothing).
        usage: The job's running usage, updated in place.
    """
    u = update or {}
    events: list[Event] = []
    if node == "route_question" and "route" in u:
        events.append(("route", {"route": u["route"], "reason": u.get("route_reason", "")}))
    elif node in ("retrieve", "web_search") and "round" in u:
        events.append(
            (
                "retrieve",
                {
                    "round": u["round"],
                    "source": u.get("round_source", "web" if node == "web_search" else "index"),
                    "found": len(u.get("documents") or []),
                    "error": u.get("retrieval_error"),
                },
            )
        )
    elif node == "grade_chunk":
        for graded in u.get("graded") or []:
            if not isinstance(graded, dict):
                continue  # the reducer's reset marker
            document = graded["document"]
            events.append(
                (
                    "grade",
                    {
                        "round": graded["round"],
                        "id": document["id"],
                        "locator": document["locator"],
                        "score": graded["score"],
                        "relevant": graded["relevant"],
                        "reason": graded["reason"],
                    },
                )
            )
    elif node == "rewrite_query" and "query" in u:
        events.append(("rewrite", {"query": u["query"]}))
    elif node == "redact_query":
        events.append(("web", {"query": u.get("web_query"), "skipped": u.get("web_skipped")}))
    elif node == "generate" and "generations" in u:
        generation = u.get("generation") or {}
        events.append(
            (
                "generate",
                {
                    "attempt": u["generations"],
                    "claims": len(generation.get("claims") or []),
                    "sources": len(generation.get("sources") or []),
                },
            )
        )
    elif node == "verify" and ("grounded" in u or "model_error" in u):
        events.append(
            (
                "verdict",
                {
                    "grounded": u.get("grounded"),
                    "resolves": u.get("resolves"),
                    "claims": list(u.get("claim_verdicts") or []),
                },
            )
        )
    elif node in ("finalize", "abstain") and u.get("outcome"):
        outcome = u["outcome"]
        events.append(("decision", {"status": outcome["status"], "reason": outcome["reason"]}))
    totals = usage.add(list(u.get("calls") or []))
    if totals is not None:
        events.append(("usage", totals))
    return events


def grades_summary(state: dict[str, Any]) -> Event | None:
    """The ``grades`` event of the round ``state`` (after ``assess_grades``) just closed."""
    round_ = state.get("round")
    graded = [g for g in state.get("graded") or [] if g.get("round") == round_]
    if round_ is None:
        return None
    relevant = sum(1 for g in graded if g.get("relevant"))
    return ("grades", {"round": round_, "relevant": relevant, "total": len(graded)})


def outcome_event(body: dict[str, Any]) -> Event:
    """The final ``outcome`` event from a stored outcome body (the verified answer, if any)."""
    keep = (
        "status",
        "reason",
        "detail",
        "answer",
        "route",
        "model_calls",
        "prompt_tokens",
        "output_tokens",
        "latency_ms",
        "trace_id",
        "handoff",
    )
    data = {k: body.get(k) for k in keep}
    data["citations"] = [
        {"n": c.get("n"), "title": c.get("title"), "locator": c.get("locator")}
        for c in body.get("citations") or []
    ]
    return ("outcome", data)
