"""Pure routing functions: each reads state and names the next node.

No model calls, no I/O, no runtime context: the limits they check were copied into state by
``begin_turn``. Each returns a ``Literal`` of node names and raises ``ValueError`` on a value
it does not know, so a wiring mistake fails loudly instead of taking a default path.
"""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from pipeline.state import AbstainReason, CragState

Fallback = Literal["redact_query", "abstain"]


def relevant_count(state: CragState) -> int:
    """Number of chunks the graders kept in the current round."""
    return sum(1 for g in state.get("graded", []) if g["relevant"])


def spent(state: CragState) -> int:
    """Chat-model calls made so far this turn (failed and retried ones included)."""
    return len(state.get("calls", []))


def over_budget(state: CragState, upcoming: int = 1) -> bool:
    """True when ``upcoming`` more model calls would pass the turn's ceiling."""
    return spent(state) + upcoming > state["budget"]["max_model_calls"]


def fallback(state: CragState) -> Fallback:
    """Web search if it is enabled and has not run this turn; otherwise abstain."""
    if state["budget"]["web_enabled"] and not state.get("web_used", False):
        return "redact_query"
    return "abstain"


def after_route(
    state: CragState,
) -> Literal["retrieve", "redact_query", "generate", "abstain"]:
    """Follow the (rule-checked) route.

    Raises:
        ValueError: ``state["route"]`` is not a known route.
    """
    match state.get("route"):
        case "vectorstore":
            return "retrieve"
        case "web_search":
            return "redact_query"
        case "direct":
            return "abstain" if over_budget(state) else "generate"
        case "none":
            return "abstain"
        case other:
            raise ValueError(f"unknown route {other!r}")


def fan_out_grading(state: CragState) -> list[Send] | Literal["assess_grades", "abstain"]:
    """Send every chunk of the round to its own grader (map step of map-reduce).

    Returns:
        One ``Send("grade_chunk", ...)`` per document; ``"assess_grades"`` when the round
        found nothing (so the decision still runs); ``"abstain"`` when grading every chunk
        would exceed the model-call ceiling.
    """
    docs = state.get("documents", [])
    if not docs:
        return "assess_grades"
    if over_budget(state, len(docs)):
        return "abstain"
    return [
        Send("grade_chunk", {"question": state["question"], "document": d, "round": state["round"]})
        for d in docs
    ]


def after_grading(
    state: CragState,
) -> Literal["generate", "rewrite_query", "redact_query", "abstain"]:
    """Decide what the graded round allows (first version of the CRAG decision).

    Enough relevant chunks: generate. Too few from the index: rewrite while rewrites are
    left, then web search. Too few from the web, or a model outage: abstain.
    """
    if state.get("model_error") or over_budget(state):
        return "abstain"
    if relevant_count(state) >= state["budget"]["min_relevant"]:
        # After an off-target answer and a rewrite, generations may already be spent.
        can_generate = state.get("generations", 0) < state["budget"]["max_generations"]
        return "generate" if can_generate else "abstain"
    if state.get("round_source") == "web":
        return "abstain"
    if state.get("retrieval_error"):
        return fallback(state)  # rewriting cannot fix an index that is down
    if state.get("rewrites", 0) < state["budget"]["max_rewrites"]:
        return "rewrite_query"
    return fallback(state)


def after_rewrite(state: CragState) -> Literal["retrieve", "redact_query", "abstain"]:
    """Retrieve with the new query, unless it repeats one already tried."""
    if state.get("model_error"):
        return "abstain"
    if state.get("duplicate_query"):
        return fallback(state)
    return "retrieve"


def after_generate(state: CragState) -> Literal["verify", "finalize", "abstain"]:
    """Verify a sourced answer; a direct reply has nothing to ground and is checked in code."""
    if state.get("model_error") or not state.get("generation"):
        return "abstain"
    if state.get("route") == "direct":
        return "verify"
    return "abstain" if over_budget(state) else "verify"


def after_verify(
    state: CragState,
) -> Literal["finalize", "generate", "rewrite_query", "abstain"]:
    """Ship a grounded answer that resolves the question; else regenerate, rewrite or abstain.

    Each loop has its own counter (Self-RAG's critique loop, Asai et al. 2023).
    """
    if state.get("model_error"):
        return "abstain"
    budget = state["budget"]
    if state.get("grounded") and state.get("resolves"):
        return "finalize"
    if not state.get("grounded"):
        if state.get("generations", 0) < budget["max_generations"] and not over_budget(state):
            return "generate"
        return "abstain"
    if (
        state.get("route") != "direct"
        and state.get("rewrites", 0) < budget["max_rewrites"]
        and not over_budget(state)
    ):
        return "rewrite_query"
    return "abstain"


def abstain_reason(state: CragState) -> AbstainReason:
    """The reason code for an abstention, derived from the state the turn ended in."""
    if state.get("model_error"):
        return "model_unavailable"
    if over_budget(state):
        return "budget_exhausted"
    if state.get("generation") is not None and state.get("grounded") is not None:
        return "off_target" if state["grounded"] else "ungrounded"
    return "no_relevant_sources"
