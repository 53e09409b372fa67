"""Graph nodes up to grading: begin, route, retrieve, grade, rewrite, redact, web search.

Answering nodes (generate, verify, finalize, abstain) are in :mod:`pipeline.answering`.

Each node takes the state and the runtime (whose ``context`` is :class:`pipeline.deps.Deps`)
and returns a partial state update. Decisions about where to go next live in
:mod:`pipeline.edges`; nodes only record facts (what was found, what a model said, what
failed). Model outages become ``model_error`` and retrieval failures ``retrieval_error``,
both handled states that end in an explicit abstention rather than a silent bad answer.
"""

from __future__ import annotations

import logging
from typing import TypedDict

from langgraph.runtime import Runtime
from opentelemetry import trace

from pipeline import prompts
from pipeline.deps import Deps, RetrievalError, WebSearchError
from pipeline.documents import Document
from pipeline.grounding import normalise_query
from pipeline.history import earlier_answer, history_budget, render_history
from pipeline.lexical import content_terms, keeps_the_message
from pipeline.llm import BadReply, ModelUnavailable
from pipeline.meter import Meter
from pipeline.refine import excerpt
from pipeline.rules import is_small_talk, ruled_route
from pipeline.schemas import (
    GradeVerdict,
    HypotheticalPassage,
    RewrittenQuery,
    RouteDecision,
    StandaloneQuestion,
)
from pipeline.screening import screened
from pipeline.sources import relevant_documents
from pipeline.standing import kept_for_web_round, lacking_query
from pipeline.state import RESET, CragState, Route, Update, asked, turn_reset
from pipeline.tracing import traced_node
from pipeline.values import GradedDocument
from pipeline.vouching import recallable

log = logging.getLogger(__name__)


class GradeTask(TypedDict):
    """The input ``Send`` gives one grader: the question and one chunk."""

    question: str
    document: Document
    round: int
    lower_threshold: float


@traced_node("begin_turn")
def begin_turn(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Start a turn: reset per-turn fields and copy the limits into state."""
    deps, limits = runtime.context, runtime.context.limits
    question = state["question"].strip()
    if not question:
        raise ValueError("question is empty")
    return {
        "question": question,
        **turn_reset(),
        "query": question,
        "budget": {
            "max_rewrites": limits.max_rewrites,
            "max_generations": limits.max_generations,
            "max_model_calls": limits.max_model_calls,
            "max_thread_calls": limits.max_thread_calls,
            "min_relevant": limits.min_relevant,
            "upper_threshold": limits.upper_threshold,
            "lower_threshold": limits.lower_threshold,
            "web_enabled": deps.web_enabled,
            "multi_hop": limits.multi_hop,
        },
    }


@traced_node("condense_question")
def condense_question(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Rewrite a follow-up as a standalone question, from the thread's earlier turns.

    The history shown is trimmed to fit the smallest context window in the model chain
    (:mod:`pipeline.history`). If the condenser fails, the message is used as it is.
    """
    deps = runtime.context
    meter = Meter.of(deps)
    history = render_history(
        state.get("history", []), history_budget(deps.limits.context_window_tokens)
    )
    messages = prompts.condenser_messages(history, state["question"])
    try:
        standalone = meter.ask(
            "condenser", deps.models.rewriter, StandaloneQuestion, messages
        ).question.strip()
    except (BadReply, ModelUnavailable) as exc:
        log.warning("condenser failed, using the message as it is: %s", exc)
        standalone = state["question"]
    if not keeps_the_message(state["question"], standalone):
        log.warning("condensed question dropped the message's own words; using the message")
        standalone = state["question"]
    return {"standalone": standalone, "query": standalone, "calls": meter.calls}


@traced_node("route_question")
def route_question(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Ask the router for a route, then apply the hard rules, which win over the model.

    Rules (see :mod:`pipeline.rules`): a question answered earlier in the thread is answered
    from the history, without asking the router (under the tenant's vouching rule, only
    when every source it cites ranks high enough: :func:`pipeline.vouching.recallable`);
    with web search off the router is not asked either (small talk goes ``direct``,
    everything else to ``vectorstore``: the only choices it could make); an invalid reply
    means ``vectorstore``; ``direct`` only for small talk; questions about recent events go
    to the web when it is on; web is never chosen when it is off; an empty or unreachable
    index is never chosen (web instead when on, else ``none``); an index that cannot be
    read routes ``none`` whatever the web setting (the turn abstains
    ``retrieval_unavailable``).
    """
    deps = runtime.context
    earlier = earlier_answer(state.get("history", []), asked(state))
    if earlier is not None and recallable(earlier, deps.trust, deps.vouch_trust):
        return {"route": "history", "route_reason": "answered earlier in this thread"}
    meter = Meter.of(deps)
    update: Update = {}
    route: Route
    if not deps.web_enabled:
        # Without web search the only choices are the index and, for small talk alone (a
        # rule below), direct: the rule decides, and a router call could change nothing.
        route = "direct" if is_small_talk(state["question"]) else "vectorstore"
        reason = "web search is off: small talk is answered directly, the rest from the index"
    else:
        try:
            decision = meter.ask(
                "router", deps.models.router, RouteDecision, prompts.router_messages(asked(state))
            )
            route, reason = decision.route, decision.reason
        except BadReply as exc:
            route, reason = "vectorstore", f"invalid router reply, defaulted: {exc}"
        except ModelUnavailable as exc:
            route, reason = "vectorstore", f"router unavailable, defaulted: {exc}"
    route, reason = ruled_route(
        route, reason, state["question"], asked(state), web_enabled=deps.web_enabled
    )
    if route == "vectorstore":
        try:
            size = deps.retriever.count() if deps.retriever else 0
        except RetrievalError as exc:
            # An index that cannot be read is not an empty one: the question stays here
            # (no web egress because of our own outage) and the turn abstains naming it.
            update["retrieval_error"] = str(exc)
            return update | {
                "route": "none",
                "route_reason": "tenant index unavailable",
                "calls": meter.calls,
            }
        if size == 0:
            route = "web_search" if deps.web_enabled else "none"
            reason = f"tenant index is empty; route {route}"
    return update | {"route": route, "route_reason": reason, "calls": meter.calls}


@traced_node("retrieve")
def retrieve(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Fetch ``retrieve_k`` chunks for ``query`` from the tenant's index, none of them ``kept``.

    After a hypothetical rewrite the search text is ``query`` followed by the ``hypothesis``
    passage, and that whole text is what ``queries_tried`` records. A failure is recorded
    (``retrieval_error``), not raised.
    """
    deps = runtime.context
    query = state["query"]
    if hypothesis := state.get("hypothesis"):
        query = f"{query} {hypothesis}"
    update: Update = {
        "round": state["round"] + 1,
        "round_source": "index",
        "graded": [RESET],
        "queries_tried": [*state["queries_tried"], query],
        "retrieval_error": None,
    }
    if deps.retriever is None:
        return update | {"documents": [], "retrieval_error": "tenant has no index"}
    # Chunks carried from the last round were graded there: k new ones are fetched beside them.
    carried = {d["id"] for d in state.get("kept", [])}
    k = deps.limits.retrieve_k
    try:
        docs = deps.retriever.search(query, k + len(carried))
    except RetrievalError as exc:
        log.warning("retrieval failed for tenant %s: %s", deps.tenant_id, exc)
        return update | {"documents": [], "retrieval_error": str(exc)}
    return update | screened(state, [d for d in docs if d["id"] not in carried][:k])


@traced_node("grade_chunk", record=False)
def grade_chunk(task: GradeTask, runtime: Runtime[Deps]) -> Update:
    """Grade one chunk against the original question (runs once per ``Send``).

    A reply that cannot be parsed is asked for once more, then counts as "not relevant"
    (nothing unverified is kept); an outage is recorded as ``model_error``.
    """
    deps = runtime.context
    meter = Meter.of(deps)
    shown = excerpt(task["document"], content_terms(task["question"]))
    messages = prompts.grader_messages(task["question"], shown)
    update: Update = {}
    usable = True
    try:
        verdict = meter.ask("grader", deps.models.grader, GradeVerdict, messages, retries=1)
        score, reason = verdict.score, verdict.reason
    except BadReply as exc:
        score, reason, usable = 0.0, f"invalid grader reply: {exc}", False
    except ModelUnavailable as exc:
        score, reason = 0.0, "grader unavailable"
        update["model_error"] = str(exc)
    graded: GradedDocument = {
        "document": task["document"],
        "score": score,
        "relevant": score >= task["lower_threshold"],
        "reason": reason,
        "round": task["round"],
        "usable": usable,
    }
    return update | {"graded": [graded], "calls": meter.calls}


@traced_node("assess_grades")
def assess_grades(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Join the graders (reduce step); the decision itself is ``edges.after_grading``."""
    graded = [g for g in state.get("graded", []) if g["round"] == state["round"]]
    span = trace.get_current_span()
    span.set_attribute("crag.chunks_graded", len(graded))
    span.set_attribute("crag.chunks_kept", sum(1 for g in graded if g["relevant"]))
    return {}


@traced_node("rewrite_query")
def rewrite_query(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Write the next retrieval query: from what an answer lacked, else by the rewriter.

    After an answer whose claims its sources did not support (``lacking``), the query is the
    question followed by those claims, in code and at no model cost (ITER-RETGEN, Shao et
    al. 2023: the model's own draft names the setting or page that holds the fact, even when
    the draft's value is wrong); the sources the answer cited are ``kept`` for the next
    round. Otherwise the rewriter is asked for a different query, given every query tried
    and why the results failed (with the multi-hop steps on, its round starts afresh:
    nothing ``kept``). With ``Limits.hypothetical_rewrite`` the first rewrite of a turn is
    instead the question searched beside a passage the model guesses as its answer (HyDE,
    :func:`_hypothetical_search`).
    """
    deps = runtime.context
    if (query := lacking_query(state)) is not None:
        return _search_for_lacking(state, query)
    meter = Meter.of(deps)
    update: Update = {
        "rewrites": state["rewrites"] + 1,
        "generation": None,
        "grounded": None,
        "resolves": None,
        "hypothesis": None,
    }
    if state["budget"].get("multi_hop", False):
        update["kept"] = []  # after a search for what was lacking, a rewrite starts afresh
    if deps.limits.hypothetical_rewrite and state["rewrites"] == 0:
        try:
            return update | _hypothetical_search(asked(state), deps, meter)
        except BadReply as exc:
            log.warning("hypothetical passage unusable, asking for a query instead: %s", exc)
        except ModelUnavailable as exc:
            return update | {"model_error": str(exc), "calls": meter.calls}
    reasons = [g["reason"] for g in state.get("graded", []) if not g["relevant"]]
    if state.get("grounded") and not state.get("resolves"):
        reasons.insert(0, "the answer from these sources did not resolve the question")
    messages = prompts.rewriter_messages(asked(state), state["queries_tried"], reasons)
    try:
        query = meter.ask("rewriter", deps.models.rewriter, RewrittenQuery, messages).query.strip()
    except BadReply as exc:
        # Not a "duplicate query" (that falls back to the web): a broken model must not
        # cause web egress.
        return update | {"model_unusable": f"invalid rewriter reply: {exc}", "calls": meter.calls}
    except ModelUnavailable as exc:
        return update | {"model_error": str(exc), "calls": meter.calls}
    tried = {normalise_query(q) for q in state["queries_tried"]}
    duplicate = not query or normalise_query(query) in tried
    return update | {
        "query": query or state["query"],
        "duplicate_query": duplicate,
        "calls": meter.calls,
    }


def _hypothetical_search(question: str, deps: Deps, meter: Meter) -> Update:
    """Search next for ``question`` beside a passage the rewriter model writes as its answer.

    HyDE (Gao et al. 2022, "Precise Zero-Shot Dense Retrieval without Relevance Labels"):
    the guessed passage carries the vocabulary of an answer (the setting, command or
    function names a manual would use), which a paraphrased question lacks, and its wrong
    facts cost nothing because only retrieval reads it. ``query`` stays the question, so
    the web, the graders and the generator never see the guess.

    Raises:
        BadReply: The model's passage was unusable (the caller asks for a query instead).
        ModelUnavailable: The model and its fallbacks were unreachable.
    """
    messages = prompts.hypothesis_messages(question)
    reply = meter.ask("hypothesis", deps.models.rewriter, HypotheticalPassage, messages)
    return {
        "query": question,
        "hypothesis": reply.passage.strip(),
        "duplicate_query": False,  # the passage makes it a search not tried yet
        "calls": meter.calls,
    }


def _search_for_lacking(state: CragState, query: str) -> Update:
    """Search ``query`` next, keeping the sources the failed answer cited (in their order)."""
    generation = state["generation"]
    assert generation is not None  # verify set ``lacking`` from it
    cited = {sid for claim in generation["claims"] for sid in claim["source_ids"]}
    return {
        "rewrites": state["rewrites"] + 1,
        "generation": None,
        "grounded": None,
        "resolves": None,
        "lacking": [],
        "kept": [d for d in relevant_documents(state) if d["id"] in cited],
        "query": query,
        "hypothesis": None,
        "duplicate_query": False,  # lacking_query returns only a search not tried yet
    }


@traced_node("redact_query")
def redact_query(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Minimise and strip personal data from the query before it leaves for web search.

    The service's redactor (:class:`redaction.egress.MinimisingRedactor`) keeps only the
    known-safe part of the query, then redacts it. When too little is left to search on it
    withholds the query: ``web_skipped`` records why and ``web_query`` stays None, so
    ``web_search`` sends nothing and the round counts as one that found nothing.
    """
    deps = runtime.context
    redaction = deps.redactor.redact(state["query"], deps.deny_terms)
    kept = [g["document"] for g in state.get("graded", []) if g["relevant"]]
    # An ambiguous index round keeps its relevant chunks beside the web results; an
    # incorrect one (or a question routed straight to the web) starts from nothing.
    update: Update = {"kept": kept if kept_for_web_round(state) else []}
    if redaction.withheld is not None or not redaction.search_text.strip():
        reason = redaction.withheld or "nothing was left to search on after redaction"
        log.info("web round skipped for tenant %s: %s", deps.tenant_id, reason)
        return update | {"web_query": None, "web_skipped": f"web search skipped: {reason}"}
    if redaction.entities:
        log.info("redacted %s from a web query", ",".join(sorted(set(redaction.entities))))
    return update | {"web_query": redaction.search_text, "web_skipped": None}


@traced_node("web_search")
def web_search(state: CragState, runtime: Runtime[Deps]) -> Update:
    """Search the web with the redacted query only; a failure is recorded, not raised.

    A withheld query (``web_skipped``) sends nothing: the round has no documents and no
    error, so the turn goes on as if the web had found nothing.
    """
    deps = runtime.context
    query = state.get("web_query")
    if state.get("web_skipped"):
        return {
            "round": state["round"] + 1,
            "round_source": "web",
            "graded": [RESET],
            "documents": [],
            "retrieval_error": None,
        }
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
    return update | screened(state, docs)
