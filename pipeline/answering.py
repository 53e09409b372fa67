"""Graph nodes that answer: generate, verify, finalize, abstain.

Generation sees graded chunks only (and, when they conflict with it, the chunks the
cross-check search found: :mod:`pipeline.corroboration`); verification checks citations
and lexical support in code first (no model cost), then asks the verifier, then, for an
answer that states a value, whether another page gives another one
(:func:`pipeline.settling.judge_contradiction`). Failure policy of the judges: a reply
that cannot be parsed is asked for once more, then the answer fails closed (treated as
ungrounded), never passed.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from pipeline import prompts
from pipeline.conflicts import claim_value_problem
from pipeline.deps import Deps
from pipeline.documents import Document
from pipeline.evidence import claim_evidence
from pipeline.grounding import (
    citation_problems,
    cited_numbers,
    claim_problems,
    published_answer,
    recited,
    resolution_problem,
)
from pipeline.history import earlier_answer
from pipeline.lexical import is_latin_text
from pipeline.llm import BadReply, ModelUnavailable
from pipeline.meter import Meter
from pipeline.schemas import (
    DirectCheck,
    DirectReply,
    GeneratedAnswer,
    LatinGeneratedAnswer,
    Verification,
)
from pipeline.settling import judge_contradiction, settle_conflict
from pipeline.sources import relevant_documents, sources_shown
from pipeline.standing import abstain_reason, spent, unusable_grading
from pipeline.state import CragState, Update, asked
from pipeline.tracing import traced_node
from pipeline.values import Claim, Generation
from pipeline.vouching import unvouched


@traced_node("generate")
def generate(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Write an answer from graded sources only, as claims that cite source numbers.

    Kept sources that disagree on the fact asked for are settled first, in code
    (:func:`settle_conflict`: trust, an abstention, or both sides stated). Sources are then
    refined (:mod:`pipeline.refine`): sentences that do not bear on the question are left
    out of the prompt.
    """
    deps = runtime.context
    update: Update = {
        "generations": state["generations"] + 1,
        "grounded": None,
        "resolves": None,
        "claim_verdicts": [],
    }
    if state["route"] != "direct":
        settled = settle_conflict(state, deps)
        if "generation" in settled:
            return update | settled  # abstain on it, or both sides stated, without a model call
        state = {**state, **settled}  # type: ignore[typeddict-item]
        update |= settled
    sources = [] if state["route"] == "direct" else sources_shown(state)
    messages = prompts.generator_messages(asked(state), sources, state.get("feedback", ""))
    meter = Meter.of(deps)
    update["calls"] = meter.calls
    schema: type[DirectReply | GeneratedAnswer] = DirectReply
    if state["route"] != "direct":
        # A claim may only be written in the scripts its question and sources use.
        latin = is_latin_text(asked(state)) and all(is_latin_text(d["text"]) for d in sources)
        schema = LatinGeneratedAnswer if latin else GeneratedAnswer
    try:
        reply = meter.ask("generator", deps.models.generator, schema, messages)
    except BadReply as exc:
        return update | {
            "generation": {"answer": "", "claims": [], "sources": [d["id"] for d in sources]},
            "feedback": f"the reply was not valid JSON for the schema ({exc})",
        }
    except ModelUnavailable as exc:
        return update | {"model_error": str(exc)}
    ids = [d["id"] for d in sources]

    def to_id(n: int) -> str:
        return ids[n - 1] if 1 <= n <= len(ids) else f"invalid:{n}"

    if isinstance(reply, DirectReply):
        generation: Generation = {"answer": reply.answer, "claims": [], "sources": ids}
        return update | {"generation": generation, "feedback": ""}
    if not reply.claims:
        # The generator read the graded sources and found no answer in them: an abstention
        # (no_relevant_sources), never a reply to verify.
        return update | {
            "generation": None,
            "feedback": "the generator found no answer to the question in the graded sources",
        }
    claims: list[Claim] = [
        {"text": c.text, "source_ids": [to_id(n) for n in c.sources]} for c in reply.claims
    ]
    generation = {"answer": "", "claims": claims, "sources": ids}
    # The feedback was spent on this attempt's prompt; verification writes the next one.
    return update | {
        "generation": generation | {"answer": published_answer(generation)},
        "feedback": "",
    }


@traced_node("verify")
def verify(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Check the answer: citations and lexical support in code first (free), then one call.

    A claim that fails its own citations but holds against another shown source is re-cited
    to it first (:func:`~pipeline.grounding.recited`; ``Limits.recite_claims``). Claims that
    still fail the checks in code are recorded in ``lacking`` for the next search
    (``rewrite_query``).
    The verifier judges each claim against only the chunks it cites, and whether the
    answer resolves the question; in code, the cited sources must mention what the question
    names, and a quantity question needs a claim that states one
    (:func:`~pipeline.grounding.resolution_problem`).
    """
    deps = runtime.context
    generation = state["generation"]
    assert generation is not None  # edges.after_generate guarantees it
    direct = state["route"] == "direct"
    allowed = set() if direct else {d["id"] for d in relevant_documents(state)}
    problems = citation_problems(generation, allowed, direct=direct)
    if problems:
        # An unusable reply already said why (generate's feedback); keep that reason.
        reason = state.get("feedback") or "; ".join(problems)
        return {"grounded": False, "resolves": False, "feedback": reason, "lacking": []}
    meter = Meter.of(deps)
    update: Update = {"calls": meter.calls, "lacking": []}
    if direct:
        return update | _check_direct(state, deps, meter, generation["answer"])
    by_id = {d["id"]: d for d in relevant_documents(state)}
    min_support = deps.limits.min_lexical_support
    fixed = recited(generation, by_id, min_support) if deps.limits.recite_claims else generation
    if fixed is not generation:
        generation = fixed
        update["generation"] = fixed
    per_claim = claim_problems(generation, by_id, min_support)
    # The claim's words too: the operator reading the outcome, and the generator asked
    # again, see which statement failed, not only its number.
    unsupported = [
        f"claim {i} {p}: {_quoted(c['text'])}"
        for i, (c, p) in enumerate(zip(generation["claims"], per_claim, strict=True), start=1)
        if p
    ]
    # What the sources lacked is what the next retrieval looks for (rewrite_query).
    lacking = [c["text"] for c, p in zip(generation["claims"], per_claim, strict=True) if p]
    wrong_value = claim_value_problem(asked(state), generation["claims"], list(by_id.values()))
    if wrong_value:
        unsupported = [*unsupported, wrong_value]
    if unsupported:
        return update | {
            "grounded": False,
            "resolves": False,
            "feedback": "; ".join(unsupported),
            "lacking": lacking,
        }
    if lone := _lone_fact(state, deps, generation, by_id):
        return update | {"grounded": False, "resolves": False, "uncorroborated": lone}
    # The verifier sees, for each claim, the passage of each source it cites that the claim
    # rests on (pipeline.evidence), numbered as the generator saw that source.
    numbered = {sid: n for n, sid in enumerate(generation["sources"], start=1)}
    claims = [
        (
            c["text"],
            [
                (numbered[sid], claim_evidence(c["text"], by_id[sid]))
                for sid in sorted(c["source_ids"], key=lambda s: numbered.get(s, 0))
                if sid in numbered and sid in by_id
            ],
        )
        for c in generation["claims"]
    ]
    if bare := [i for i, (_, evidence) in enumerate(claims, start=1) if not evidence]:
        # Unreachable while citation_problems holds; never leave it to the model alone.
        return update | {
            "grounded": False,
            "resolves": False,
            "feedback": "; ".join(f"claim {i} cites no source it was shown" for i in bare),
        }
    messages = prompts.verifier_messages(asked(state), claims)
    verdict, failed = meter.judge(
        "verifier",
        deps.models.verifier,
        Verification,
        messages,
        "the verifier could not check the answer",
    )
    if verdict is None:
        return update | failed
    supported = {v.claim for v in verdict.claims if v.supported}
    failing = [i for i in range(1, len(claims) + 1) if i not in supported]
    feedback = (
        "unsupported claims: " + "; ".join(claims[i - 1][0] for i in failing) if failing else ""
    )
    unresolved = resolution_problem(asked(state), generation, by_id)
    if unresolved or not verdict.resolves_question:
        feedback = (feedback + "; " if feedback else "") + (
            unresolved or "the answer does not resolve the question"
        )
    update |= {
        "grounded": not failing,
        "resolves": verdict.resolves_question and unresolved is None,
        "feedback": feedback,
        "claim_verdicts": [i not in failing for i in range(1, len(claims) + 1)],
    }
    if update["grounded"] and update["resolves"]:
        # The last check before it ships: does another page give another value?
        update |= judge_contradiction(state, deps, meter, generation, by_id)
        update["calls"] = meter.calls
    return update


def _lone_fact(
    state: CragState, deps: Deps, generation: Generation, by_id: dict[str, Document]
) -> str | None:
    """Under the tenant's vouching rule, why the answer may not ship (else ``None``).

    Checked in code before the verifier's call, so a withheld answer costs no prompt
    tokens. A both-sides answer (``on_conflict="both"``) is exempt: it gives the lone
    source's value as that source's, beside the other (:mod:`pipeline.vouching`).
    """
    conflict = state.get("conflict")
    if deps.vouch_trust is None or (conflict and conflict["settled"] == "both"):
        return None
    found = unvouched(asked(state), generation["claims"], by_id, deps.trust, deps.vouch_trust)
    return found.describe() if found else None


def _check_direct(state: CragState, deps: Deps, meter: Meter, reply: str) -> Update:
    """A direct reply has no sources, so it may state no facts at all."""
    messages = prompts.direct_check_messages(state["question"], reply)
    check, failed = meter.judge(
        "direct_check",
        deps.models.verifier,
        DirectCheck,
        messages,
        "the verifier could not check the reply",
    )
    if check is None:
        return failed
    if check.states_facts:
        return {
            "grounded": False,
            "resolves": False,
            "feedback": "a reply without sources must not state facts",
        }
    return {"grounded": True, "resolves": True, "feedback": ""}


@traced_node("finalize")
def finalize(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Publish the verified answer with the citations it actually uses."""
    generation = state["generation"]
    assert generation is not None
    by_id = {d["id"]: d for d in relevant_documents(state)}
    text = published_answer(generation)
    citations = [
        {
            "n": n,
            "id": (doc := by_id[generation["sources"][n - 1]])["id"],
            "locator": doc["locator"],
            "title": doc["title"],
            "source_type": doc["source_type"],
        }
        for n in cited_numbers(generation, text)
    ]
    detail = f"grounded answer via {state['route']}"
    if conflict := state.get("conflict"):
        detail += f"; {conflict['detail']}"
    if (checked := state.get("cross_check")) and checked["error"]:
        detail += f"; the cross-check search for another source failed: {checked['error']}"
    outcome = {
        "status": "answered",
        "answer": text,
        "citations": citations,
        "reason": None,
        "detail": detail,
    }
    return _end_turn(state, outcome)


@traced_node("recall_answer")
def recall_answer(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Answer a question asked before in this thread with its earlier answer and citations.

    No model call: the answer was verified when it was first given.
    """
    earlier = earlier_answer(state.get("history", []), asked(state))
    assert earlier is not None  # route_question chose "history" because it exists
    outcome = {
        "status": "answered",
        "answer": earlier["answer"],
        "citations": earlier["citations"],
        "reason": None,
        "detail": "answered earlier in this thread",
    }
    return _end_turn(state, outcome)


@traced_node("abstain")
def abstain(state: CragState, runtime: Runtime[Deps]) -> Update:
    """End the turn with an explicit abstention and its reason code."""
    reason = abstain_reason(state)
    tried = ", ".join(repr(q) for q in state.get("queries_tried", [])) or "none"
    detail = {
        "no_relevant_sources": "no source that answers the question was found",
        "conflicting_sources": "the sources disagree on the fact the question asks for",
        "uncorroborated": "no source the tenant trusts enough states a fact of the answer",
        "ungrounded": "the answer could not be verified against its sources",
        "off_target": "the sources found do not resolve the question",
        "budget_exhausted": "the model-call budget for this question ran out",
        "model_unavailable": "the language model could not be reached",
        "model_unusable": "the language model's replies were unusable (invalid for their schema)",
        "retrieval_unavailable": "the sources could not be searched",
    }[reason]
    extra = (
        _conflict_detail(state, reason)
        or state.get("uncorroborated")
        or state.get("retrieval_error")
        or state.get("web_skipped")
        or state.get("model_error")
        or state.get("model_unusable")
        or _grader_failure(state)
        or state.get("feedback")
    )
    detail = f"{detail}; queries tried: {tried}" + (f"; {extra}" if extra else "")
    outcome = {
        "status": "abstained",
        "answer": "",
        "citations": [],
        "reason": reason,
        "detail": detail,
    }
    return _end_turn(state, outcome)


def _conflict_detail(state: CragState, reason: str) -> str | None:
    """The conflict's sentence, when the turn abstains on it."""
    conflict = state.get("conflict")
    return conflict["detail"] if conflict and reason == "conflicting_sources" else None


def _grader_failure(state: CragState) -> str | None:
    """The first unusable grader reply of the round, when no grader reply was usable."""
    if not unusable_grading(state):
        return None
    graded = [g for g in state.get("graded", []) if g["round"] == state.get("round")]
    return f"{len(graded)} of {len(graded)} grader replies unusable: {graded[0]['reason']}"


def _end_turn(state: CragState, outcome: dict[str, Any]) -> Update:
    """Close the turn: the outcome, the turn in the thread's history, the thread's calls."""
    return {
        "outcome": outcome,
        "history": [_turn(state["question"], outcome)],
        "thread_calls": state.get("thread_calls", 0) + spent(state),
    }


def _turn(question: str, outcome: dict[str, Any]) -> dict[str, Any]:
    return {
        "question": question,
        "status": outcome["status"],
        "answer": outcome["answer"],
        "citations": outcome["citations"],
    }


QUOTED_CHARS = 120
"""Longest claim text quoted in a refusal's reason (longer ones are cut with "…")."""


def _quoted(text: str) -> str:
    """``text`` in double quotes, cut to :data:`QUOTED_CHARS`."""
    cut = text if len(text) <= QUOTED_CHARS else text[: QUOTED_CHARS - 1].rstrip() + "…"
    return f'"{cut}"'
