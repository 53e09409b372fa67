"""Shaping a job's outcome (the webhook body) from the state a turn ended in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.accounting import calls_by_kind, made, tokens_by_kind, tokens_by_model
from pipeline.values import ModelCall
from workers.contracts.jobs import Job, OutcomeBody


def apology(
    job: Job,
    text: str,
    state: dict[str, Any],
    deadline_s: float,
    reason: str = "deadline_exceeded",
) -> OutcomeBody:
    """The apology outcome, for a person to follow up (``failed``, ``handoff``).

    ``text`` is the apology shown to the user (``CRAG_APOLOGY``). ``reason`` is
    ``deadline_exceeded`` (no verified answer in ``deadline_s`` seconds of submission) or
    ``model_unavailable`` (every model in the chain was down).
    """
    detail = (
        "every language model in the chain was unreachable"
        if reason == "model_unavailable"
        else f"no verified answer within {deadline_s:g}s of submission"
    )
    return OutcomeBody(
        job_id=job.job_id,
        tenant_id=job.tenant_id,
        thread_id=job.thread_id,
        status="failed",
        answer=text,
        reason=reason,
        detail=detail,
        handoff=True,
        route=state.get("route"),
        path=state.get("trace", []),
        queries_tried=state.get("queries_tried", []),
        model_failures=_failures(state.get("calls", [])),
        **_cost(state.get("calls", [])),
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
        conflict=state.get("conflict"),
        flagged_sources=state.get("flagged", []),
        rewrites=state.get("rewrites", 0),
        generations=state.get("generations", 0),
        web_used=state.get("web_used", False),
        model_failures=_failures(calls),
        **_cost(calls),
        latency_ms=latency_ms,
        trace_id=trace_id,
    )


def _cost(calls: Sequence[ModelCall]) -> dict[str, Any]:
    """What the turn's model calls cost: counts and tokens (an apology too had a cost)."""
    by_kind = tokens_by_kind(calls)
    return {
        "model_calls": len(made(calls)),
        "calls_by_kind": calls_by_kind(calls),
        "tokens_by_model": tokens_by_model(calls),
        "tokens_by_kind": by_kind,
        "prompt_tokens": sum(t["input"] for t in by_kind.values()),
        "cached_prompt_tokens": sum(t["cached"] for t in by_kind.values()),
        "output_tokens": sum(t["output"] for t in by_kind.values()),
    }


def _failures(calls: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [
        {"kind": c["kind"], "model": c["model"], "error": c.get("error") or "?"}
        for c in calls
        if not c["ok"]
    ]
