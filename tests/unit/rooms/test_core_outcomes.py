"""The outcome a job publishes, shaped directly from the state a turn ended in."""

from __future__ import annotations

from typing import Any

from workers.contracts.jobs import new_job
from workers.core.outcomes import apology, outcome_body

JOB = new_job("acme", "th-1", "What torque does the rotor shaft fastener need?")


def _call(kind: str, ok: bool, tokens: int, error: str | None = None) -> dict[str, Any]:
    return {
        "kind": kind,
        "model": "m",
        "ok": ok,
        "input_tokens": tokens,
        "output_tokens": 5,
        "cached_tokens": 0,
        "error": error,
    }


def test_an_answered_turn_publishes_its_answer_citations_path_and_cost() -> None:
    state = {
        "outcome": {
            "status": "answered",
            "answer": "45 N·m [1].",
            "citations": [
                {"n": 1, "id": "c1", "locator": "manual.md", "title": "M", "source_type": "index"}
            ],
            "reason": None,
            "detail": "",
        },
        "route": "vectorstore",
        "trace": ["begin_turn", "route:vectorstore", "finalize"],
        "calls": [_call("grader", True, 100), _call("generator", True, 300)],
        "rewrites": 1,
    }
    body = outcome_body(JOB, state, latency_ms=1234, trace_id="abc")
    assert (body.status, body.answer, body.route, body.rewrites) == (
        "answered",
        "45 N·m [1].",
        "vectorstore",
        1,
    )
    assert [c.locator for c in body.citations] == ["manual.md"]
    assert (body.model_calls, body.prompt_tokens, body.output_tokens) == (2, 400, 10)
    assert (body.latency_ms, body.trace_id, body.handoff) == (1234, "abc", False)


def test_the_apology_hands_off_names_its_reason_and_keeps_the_cost_and_failures() -> None:
    state = {
        "trace": ["begin_turn"],
        "calls": [_call("router", False, 0, "ConnectError"), _call("grader", True, 50)],
    }
    late = apology(JOB, "A person will follow up.", state, 120.0)
    down = apology(JOB, "Sorry.", state, 120.0, reason="model_unavailable")
    assert (late.status, late.answer, late.handoff) == ("failed", "A person will follow up.", True)
    assert (late.reason, late.detail) == (
        "deadline_exceeded",
        "no verified answer within 120s of submission",
    )
    assert (down.reason, down.answer) == ("model_unavailable", "Sorry.")
    assert down.detail == "every language model in the chain was unreachable"
    assert late.model_failures == [{"kind": "router", "model": "m", "error": "ConnectError"}]
    assert late.prompt_tokens == 50
