"""Graph nodes: the steps that call models, the retriever, the redactor and web search.

Each node takes the state and the runtime (whose ``context`` is :class:`pipeline.deps.Deps`)
and returns a partial state update. Decisions about where to go next live in
:mod:`pipeline.edges`; nodes only record facts (what was found, what a model said, what
failed). Model outages become ``model_error`` and retrieval failures ``retrieval_error``,
both handled states that end in an explicit abstention rather than a silent bad answer.
"""

from __future__ import annotations

import logging
from typing import Any, TypedDict, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime
from opentelemetry import trace
from pydantic import BaseModel

from pipeline import prompts
from pipeline.deps import Deps, RetrievalError, WebSearchError
from pipeline.documents import Document
from pipeline.edges import abstain_reason
from pipeline.grounding import (
    citation_problems,
    cited_numbers,
    cited_sources,
    normalise_query,
    published_answer,
    support_problems,
)
from pipeline.llm import BadReply, ModelUnavailable, ask_structured, model_name
from pipeline.rules import asks_about_recent_events, is_small_talk
from pipeline.schemas import (
    MAX_SOURCES,
    DirectCheck,
    DirectReply,
    GeneratedAnswer,
    GradeVerdict,
    RewrittenQuery,
    RouteDecision,
    Verification,
)
from pipeline.state import RESET, CragState, GradedDocument, Route
from pipeline.tracing import model_span, record_usage, traced_node

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
Update = dict[str, Any]


class GradeTask(TypedDict):
    """The input ``Send`` gives one grader: the question and one chunk."""

    question: str
    document: Document
    round: int


def _ask(role: str, model: BaseChatModel, schema: type[M], messages: list[BaseMessage]) -> M:
    with model_span(role, model_name(model)) as span:
        reply, usage = ask_structured(model, schema, messages)
        record_usage(span, usage)
    return reply


def _relevant(state: CragState) -> list[Document]:
    return [g["document"] for g in state.get("graded", []) if g["relevant"]]


@traced_node("begin_turn")
def begin_turn(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Start a turn: reset per-turn fields and copy the limits into state."""
    deps, limits = runtime.context, runtime.context.limits
    question = state["question"].strip()
    if not question:
        raise ValueError("question is empty")
    return {
        "question": question,
        "query": question,
        "queries_tried": [],
        "budget": {
            "max_rewrites": limits.max_rewrites,
            "max_generations": limits.max_generations,
            "max_model_calls": limits.max_model_calls,
            "min_relevant": limits.min_relevant,
            "web_enabled": deps.web_enabled,
        },
        "documents": [],
        "round": -1,
        "graded": [RESET],
        "retrieval_error": None,
        "web_query": None,
        "web_used": False,
        "generation": None,
        "feedback": "",
        "grounded": None,
        "resolves": None,
        "duplicate_query": False,
        "rewrites": 0,
        "generations": 0,
        "model_calls": 0,
        "model_error": None,
        "outcome": None,
        "trace": [RESET],
    }


@traced_node("route_question")
def route_question(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Ask the router for a route, then apply the hard rules, which win over the model.

    Rules (see :mod:`pipeline.rules`): an invalid reply means ``vectorstore``; ``direct``
    only for small talk; questions about recent events go to the web when it is on; web is
    never chosen when it is off; an empty or unreachable index is never chosen (web instead
    when on, else ``none``).
    """
    deps = runtime.context
    update: Update = {"model_calls": state["model_calls"] + 1}
    try:
        decision = _ask(
            "router", deps.models.router, RouteDecision, prompts.router_messages(state["question"])
        )
        route: Route = decision.route
        reason = decision.reason
    except BadReply as exc:
        route, reason = "vectorstore", f"invalid router reply, defaulted: {exc}"
    except ModelUnavailable as exc:
        route, reason = "vectorstore", f"router unavailable, defaulted: {exc}"
    if route == "direct" and not is_small_talk(state["question"]):
        route, reason = "vectorstore", "the direct route is only for small talk"
    if route == "vectorstore" and deps.web_enabled and asks_about_recent_events(state["question"]):
        route, reason = "web_search", "the question is about recent events"
    if route == "web_search" and not deps.web_enabled:
        route, reason = "vectorstore", "web search is off for this job"
    if route == "vectorstore":
        try:
            size = deps.retriever.count() if deps.retriever else 0
        except RetrievalError as exc:
            size, update["retrieval_error"] = 0, str(exc)
        if size == 0:
            route = "web_search" if deps.web_enabled else "none"
            reason = f"tenant index is empty or unavailable; route {route}"
    return update | {"route": route, "route_reason": reason}


@traced_node("retrieve")
def retrieve(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Fetch chunks for ``query`` from the tenant's index; a failure is recorded, not raised."""
    deps = runtime.context
    query = state["query"]
    update: Update = {
        "round": state["round"] + 1,
        "round_source": "index",
        "graded": [RESET],
        "queries_tried": [*state["queries_tried"], query],
        "retrieval_error": None,
    }
    if deps.retriever is None:
        return update | {"documents": [], "retrieval_error": "tenant has no index"}
    try:
        docs = deps.retriever.search(query, deps.limits.retrieve_k)
    except RetrievalError as exc:
        log.warning("retrieval failed for tenant %s: %s", deps.tenant_id, exc)
        return update | {"documents": [], "retrieval_error": str(exc)}
    return update | {"documents": docs}


@traced_node("grade_chunk", record=False)
def grade_chunk(task: GradeTask, runtime: Runtime[Deps]) -> Update:
    """Grade one chunk against the original question (runs once per ``Send``).

    An invalid grader reply counts as "not relevant" (nothing unverified is kept); an
    outage is recorded as ``model_error``.
    """
    deps = runtime.context
    messages = prompts.grader_messages(task["question"], task["document"])
    try:
        verdict = _ask("grader", deps.models.grader, GradeVerdict, messages)
        relevant, reason = verdict.relevant == "yes", verdict.reason
    except BadReply as exc:
        relevant, reason = False, f"invalid grader reply: {exc}"
    except ModelUnavailable as exc:
        return {"model_error": str(exc), "graded": [_graded(task, False, "grader unavailable")]}
    return {"graded": [_graded(task, relevant, reason)]}


def _graded(task: GradeTask, relevant: bool, reason: str) -> GradedDocument:
    return {
        "document": task["document"],
        "relevant": relevant,
        "reason": reason,
        "round": task["round"],
    }


@traced_node("assess_grades")
def assess_grades(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Join the graders: count their calls; the decision itself is ``edges.after_grading``."""
    graded = [g for g in state.get("graded", []) if g["round"] == state["round"]]
    span = trace.get_current_span()
    span.set_attribute("crag.chunks_graded", len(graded))
    span.set_attribute("crag.chunks_kept", sum(1 for g in graded if g["relevant"]))
    return {"model_calls": state["model_calls"] + len(graded)}


@traced_node("rewrite_query")
def rewrite_query(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Ask for a different query, given every query tried and why results failed."""
    deps = runtime.context
    reasons = [g["reason"] for g in state.get("graded", []) if not g["relevant"]]
    if state.get("grounded") and not state.get("resolves"):
        reasons.insert(0, "the answer from these sources did not resolve the question")
    messages = prompts.rewriter_messages(state["question"], state["queries_tried"], reasons)
    update: Update = {
        "rewrites": state["rewrites"] + 1,
        "model_calls": state["model_calls"] + 1,
        "generation": None,
        "grounded": None,
        "resolves": None,
    }
    try:
        query = _ask("rewriter", deps.models.rewriter, RewrittenQuery, messages).query.strip()
    except BadReply:
        query = ""
    except ModelUnavailable as exc:
        return update | {"model_error": str(exc)}
    tried = {normalise_query(q) for q in state["queries_tried"]}
    duplicate = not query or normalise_query(query) in tried
    return update | {"query": query or state["query"], "duplicate_query": duplicate}


@traced_node("redact_query")
def redact_query(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Strip personal data from the query before it leaves for web search."""
    redaction = runtime.context.redactor.redact(state["query"])
    if redaction.entities:
        log.info("redacted %s from a web query", ",".join(sorted(set(redaction.entities))))
    return {"web_query": redaction.text}


@traced_node("web_search")
def web_search(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Search the web with the redacted query only; a failure is recorded, not raised."""
    deps = runtime.context
    query = state.get("web_query")
    update: Update = {
        "round": state["round"] + 1,
        "round_source": "web",
        "graded": [RESET],
        "web_used": True,
        "retrieval_error": None,
    }
    if deps.web_search is None or query is None:
        return update | {"documents": [], "retrieval_error": "web search is not available"}
    update["queries_tried"] = [*state["queries_tried"], query]
    log.info("web search for tenant %s: %r", deps.tenant_id, query)
    try:
        docs = deps.web_search.search(query, deps.limits.web_results)
    except WebSearchError as exc:
        return update | {"documents": [], "retrieval_error": str(exc)}
    return update | {"documents": docs}


@traced_node("generate")
def generate(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Write an answer from graded sources only, as claims that cite source numbers."""
    deps = runtime.context
    sources = [] if state["route"] == "direct" else _relevant(state)[:MAX_SOURCES]
    messages = prompts.generator_messages(state["question"], sources, state.get("feedback", ""))
    update: Update = {
        "generations": state["generations"] + 1,
        "model_calls": state["model_calls"] + 1,
        "grounded": None,
        "resolves": None,
    }
    schema: type[DirectReply | GeneratedAnswer] = (
        DirectReply if state["route"] == "direct" else GeneratedAnswer
    )
    try:
        reply = _ask("generator", deps.models.generator, schema, messages)
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

    claims = []
    if isinstance(reply, GeneratedAnswer):
        claims = [
            {"text": c.text, "source_ids": [to_id(n) for n in c.sources]} for c in reply.claims
        ]
    # The feedback was spent on this attempt's prompt; verification writes the next one.
    return update | {
        "generation": {"answer": reply.answer, "claims": claims, "sources": ids},
        "feedback": "",
    }


@traced_node("verify")
def verify(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Check the answer: citations in code first (free), then one verifier call.

    The verifier judges each claim against only the chunks it cites, and whether the
    answer resolves the question.
    """
    deps = runtime.context
    generation = state["generation"]
    assert generation is not None  # edges.after_generate guarantees it
    direct = state["route"] == "direct"
    allowed = set() if direct else {d["id"] for d in _relevant(state)}
    problems = citation_problems(generation, allowed, direct=direct)
    if problems:
        # An unusable reply already said why (generate's feedback); keep that reason.
        reason = state.get("feedback") or "; ".join(problems)
        return {"grounded": False, "resolves": False, "feedback": reason}
    update: Update = {"model_calls": state["model_calls"] + 1}
    if direct:
        return update | _check_direct(state, deps, generation["answer"])
    by_id = {d["id"]: d for d in _relevant(state)}
    unsupported = support_problems(generation, by_id, deps.limits.min_lexical_support)
    if unsupported:
        return {"grounded": False, "resolves": False, "feedback": "; ".join(unsupported)}
    claims = [
        (c["text"], cited_sources(c, generation["sources"], by_id)) for c in generation["claims"]
    ]
    messages = prompts.verifier_messages(state["question"], generation["answer"], claims)
    try:
        verdict = _ask("verifier", deps.models.verifier, Verification, messages)
    except BadReply as exc:
        return update | {
            "grounded": False,
            "resolves": False,
            "feedback": f"the verifier could not check the answer ({exc})",
        }
    except ModelUnavailable as exc:
        return update | {"model_error": str(exc)}
    supported = {v.claim for v in verdict.claims if v.supported}
    failing = [i for i in range(1, len(claims) + 1) if i not in supported]
    feedback = (
        "unsupported claims: " + "; ".join(claims[i - 1][0] for i in failing) if failing else ""
    )
    if not verdict.resolves_question:
        feedback = (
            feedback + "; " if feedback else ""
        ) + "the answer does not resolve the question"
    return update | {
        "grounded": not failing,
        "resolves": verdict.resolves_question,
        "feedback": feedback,
    }


def _check_direct(state: CragState, deps: Deps, reply: str) -> Update:
    """A direct reply has no sources, so it may state no facts at all."""
    messages = prompts.direct_check_messages(state["question"], reply)
    try:
        check = _ask("verifier", deps.models.verifier, DirectCheck, messages)
    except BadReply as exc:
        return {
            "grounded": False,
            "resolves": False,
            "feedback": f"the verifier could not check the reply ({exc})",
        }
    except ModelUnavailable as exc:
        return {"model_error": str(exc)}
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
    by_id = {d["id"]: d for d in _relevant(state)}
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
    outcome = {
        "status": "answered",
        "answer": text,
        "citations": citations,
        "reason": None,
        "detail": f"grounded answer via {state['route']}",
    }
    return {"outcome": outcome, "history": [_turn(state["question"], outcome)]}


@traced_node("abstain")
def abstain(state: CragState, runtime: Runtime[Deps]) -> Update:
    """End the turn with an explicit abstention and its reason code."""
    reason = abstain_reason(state)
    tried = ", ".join(repr(q) for q in state.get("queries_tried", [])) or "none"
    detail = {
        "no_relevant_sources": "no source that answers the question was found",
        "ungrounded": "the answer could not be verified against its sources",
        "off_target": "the sources found do not resolve the question",
        "budget_exhausted": "the model-call budget for this question ran out",
        "model_unavailable": "the language model could not be reached",
    }[reason]
    extra = state.get("retrieval_error") or state.get("model_error") or state.get("feedback")
    detail = f"{detail}; queries tried: {tried}" + (f"; {extra}" if extra else "")
    outcome = {
        "status": "abstained",
        "answer": "",
        "citations": [],
        "reason": reason,
        "detail": detail,
    }
    return {"outcome": outcome, "history": [_turn(state["question"], outcome)]}


def _turn(question: str, outcome: dict[str, Any]) -> dict[str, Any]:
    return {
        "question": question,
        "status": outcome["status"],
        "answer": outcome["answer"],
        "citations": outcome["citations"],
    }
