"""Where a turn stands: counts, budget left, the round's tier, the abstention's reason.

Pure functions of state, read by the routing functions (:mod:`pipeline.edges`) and by the
nodes alike, so the edges module holds routing only.
"""

from __future__ import annotations

from typing import Literal

from pipeline.accounting import made
from pipeline.grounding import normalise_query
from pipeline.state import AbstainReason, CragState, asked

Tier = Literal["correct", "ambiguous", "incorrect"]
"""CRAG's confidence tiers of a graded round (Yan et al. 2024, *Corrective Retrieval
Augmented Generation*)."""


def unusable_grading(state: CragState) -> bool:
    """True when the round had chunks and no grader reply about them could be used."""
    graded = [g for g in state.get("graded", []) if g["round"] == state.get("round")]
    return bool(graded) and not any(g.get("usable", True) for g in graded)


def relevant_count(state: CragState) -> int:
    """Number of chunks the graders kept in the current round."""
    return sum(1 for g in state.get("graded", []) if g["relevant"])


def spent(state: CragState) -> int:
    """Chat-model calls made so far this turn (failed and retried ones included)."""
    return len(made(state.get("calls", [])))


def over_budget(state: CragState, upcoming: int = 1) -> bool:
    """True when ``upcoming`` more model calls would pass the turn's or the thread's ceiling."""
    after = spent(state) + upcoming
    budget = state["budget"]
    return (
        after > budget["max_model_calls"]
        or state.get("thread_calls", 0) + after > budget["max_thread_calls"]
    )


def web_left(state: CragState) -> bool:
    """True when web search is on and this turn has had no web round (sent or skipped)."""
    return (
        state["budget"]["web_enabled"]
        and not state.get("web_used", False)
        and not state.get("web_skipped")
    )


def confidence_tier(state: CragState) -> Tier:
    """The CRAG confidence tier of the current round's grades (Yan et al. 2024, §4.3).

    ``correct``: some chunk scores at or above the upper threshold; ``incorrect``: none
    reaches the lower threshold (or the round found nothing); ``ambiguous``: in between.
    """
    budget = state["budget"]
    best = max((g["score"] for g in state.get("graded", [])), default=0.0)
    if best >= budget["upper_threshold"]:
        return "correct"
    if best >= budget["lower_threshold"]:
        return "ambiguous"
    return "incorrect"


def kept_for_web_round(state: CragState) -> bool:
    """Keep this round's relevant index chunks beside the web results (ambiguous tier)."""
    return state.get("round_source") == "index" and confidence_tier(state) == "ambiguous"


def abstain_reason(state: CragState) -> AbstainReason:
    """The reason code for an abstention, derived from the state the turn ended in."""
    if state.get("model_error"):
        return "model_unavailable"
    if over_budget(state):
        return "budget_exhausted"
    if state.get("model_unusable") or unusable_grading(state):
        return "model_unusable"
    conflict = state.get("conflict")
    if conflict is not None and conflict["settled"] == "abstained":
        return "conflicting_sources"
    if state.get("uncorroborated"):
        return "uncorroborated"
    if state.get("generation") is not None and state.get("grounded") is not None:
        return "off_target" if state["grounded"] else "ungrounded"
    if state.get("retrieval_error"):
        return "retrieval_unavailable"  # the index (or web search) could not be searched
    return "no_relevant_sources"


def lacking_query(state: CragState) -> str | None:
    """The search for what the last answer lacked: the question, then its unsupported claims.

    ``None`` when no claim was found lacking, or when that exact search (normalised, as
    :func:`pipeline.grounding.normalise_query` compares) was already tried this turn: the
    same search would find the same chunks.
    """
    lacking = state.get("lacking")
    if not lacking:
        return None
    query = " ".join([asked(state), *lacking])
    tried = {normalise_query(q) for q in state.get("queries_tried", [])}
    return None if normalise_query(query) in tried else query
