"""Pure routing functions: each reads state and names the next node.

No model calls, no I/O, no runtime context: the limits they check were copied into state by
``begin_turn``. Each returns a ``Literal`` of node names and raises ``ValueError`` on a value
it does not know, so a wiring mistake fails loudly instead of taking a default path.
"""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from pipeline.history import earlier_answer
from pipeline.standing import (
    confidence_tier,
    lacking_query,
    over_budget,
    relevant_count,
    unusable_grading,
    web_left,
)
from pipeline.state import CragState, asked

Fallback = Literal["redact_query", "abstain"]


def fallback(state: CragState) -> Fallback:
    """Web search if it is enabled and has not run this turn; otherwise abstain."""
    return "redact_query" if web_left(state) else "abstain"


def after_begin(
    state: CragState,
) -> Literal["condense_question", "route_question", "abstain"]:
    """Start the turn: abstain at once if the thread is out of calls, else condense.

    A turn on a thread with history condenses the message into a standalone question first,
    unless the message repeats a question answered earlier word for word (the router then
    answers it from the history, and a condenser could only garble it).
    """
    if over_budget(state):
        return "abstain"
    history = state.get("history")
    if not history or earlier_answer(history, state["question"]) is not None:
        return "route_question"
    return "condense_question"


def after_route(
    state: CragState,
) -> Literal["retrieve", "redact_query", "generate", "recall_answer", "abstain"]:
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
        case "history":
            return "recall_answer"
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
        Send(
            "grade_chunk",
            {
                "question": asked(state),
                "document": d,
                "round": state["round"],
                "lower_threshold": state["budget"]["lower_threshold"],
            },
        )
        for d in docs
    ]


def after_grading(
    state: CragState,
) -> Literal["generate", "rewrite_query", "redact_query", "abstain"]:
    """Act on the round's confidence tier (CRAG's corrective actions).

    Index round: ``correct`` generates from the kept chunks; ``ambiguous`` keeps them and
    adds web results (or generates from them when the web is off); ``incorrect`` rewrites
    the query while rewrites are left, then turns to the web with the index chunks
    discarded. A round that searched for what an answer lacked generates again from that
    answer's sources and whatever it added. Web round: generate from what was kept and
    what the web gave, or abstain.
    """
    budget = state["budget"]
    if state.get("model_error") or over_budget(state) or unusable_grading(state):
        return "abstain"
    enough = relevant_count(state) + len(state.get("kept", [])) >= budget["min_relevant"]
    can_generate = state.get("generations", 0) < budget["max_generations"]
    if state.get("round_source") == "web":
        return "generate" if enough and can_generate else "abstain"
    if state.get("retrieval_error"):
        # Rewriting cannot fix an index that is down, and our outage must not send the
        # question to the web.
        return "abstain"
    if budget.get("multi_hop", False) and state.get("kept") and can_generate:
        # A search for what an answer lacked: answer again from its sources and what the
        # search added, whatever this round's tier (the earlier sources were graded).
        return "generate"
    tier = confidence_tier(state)
    web = web_left(state)
    if enough and (tier == "correct" or (tier == "ambiguous" and not web)):
        # After an off-target answer and a rewrite, generations may already be spent.
        return "generate" if can_generate else "abstain"
    if tier == "ambiguous" and web:
        return "redact_query"
    if state.get("rewrites", 0) < budget["max_rewrites"]:
        return "rewrite_query"
    return fallback(state)


def after_rewrite(state: CragState) -> Literal["retrieve", "redact_query", "abstain"]:
    """Retrieve with the new query, unless it repeats one already tried."""
    if state.get("model_error") or state.get("model_unusable"):
        return "abstain"
    if state.get("duplicate_query"):
        return fallback(state)
    return "retrieve"


def after_generate(state: CragState) -> Literal["verify", "abstain"]:
    """Verify a sourced answer; a direct reply has nothing to ground and is checked in code."""
    if state.get("model_error") or not state.get("generation"):
        return "abstain"
    if state.get("route") == "direct":
        return "verify"
    return "abstain" if over_budget(state) else "verify"


def after_verify(
    state: CragState,
) -> Literal["finalize", "generate", "rewrite_query", "abstain"]:
    """Ship a grounded answer that resolves the question; else search, regenerate or abstain.

    An answer whose claims the checks in code found missing from their sources (``lacking``)
    searches the index for them before it is written again: generation-augmented
    retrieval (Shao et al. 2023, "Enhancing Retrieval-Augmented Large Language Models with
    Iterative Retrieval-Generation Synergy", ITER-RETGEN), since a 1.5B generator told
    only which claim failed mostly writes it again from memory. Each loop has its own
    counter (Self-RAG's critique loop, Asai et al. 2023).
    """
    conflict = state.get("conflict")
    if conflict is not None and conflict["settled"] == "abstained":
        return "abstain"  # the verified answer's value is contradicted (judge_contradiction)
    if state.get("model_error") or state.get("uncorroborated"):
        return "abstain"  # no rewrite or new draft makes a lone source trusted
    budget = state["budget"]
    if state.get("grounded") and state.get("resolves"):
        return "finalize"
    if lacking_query(state) is not None and _can_search_again(state):
        # The sources lacked facts the answer needed: search for them (ITER-RETGEN).
        return "rewrite_query"
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


def _can_search_again(state: CragState) -> bool:
    """The search for what was lacking is on, and this index turn can afford one more round."""
    budget = state["budget"]
    return (
        budget.get("multi_hop", False)
        and state.get("route") == "vectorstore"
        and state.get("rewrites", 0) < budget["max_rewrites"]
        and state.get("generations", 0) < budget["max_generations"]
        and not over_budget(state)
    )
