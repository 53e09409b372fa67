"""Every question of the PII corpus through the real graph's web route: the local web-search
stand-in must receive none of the personal data, whether the question goes to the web
directly or through the rewriter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from pipeline.graph import build_graph
from redaction.evaluate import surviving_fragments
from redaction.pii_corpus import Question, load_questions
from tests.fakes.chat import ScriptedChatModel, grade_by_keyword
from tests.fakes.web_provider import FakeWebProvider
from tests.integration.graph_helpers import make_deps, route, run_turn

pytestmark = pytest.mark.integration

QUESTIONS = load_questions(Path(__file__).resolve().parents[1] / "data" / "pii" / "personal.jsonl")


@pytest.fixture(scope="module")
def graph() -> Any:
    """One compiled graph for all questions (each turn runs on its own thread id)."""
    return build_graph(InMemorySaver())


def leaks(question: Question, sent: str) -> list[str]:
    """Labelled values of ``question`` with a fragment in ``sent`` (see redaction.evaluate)."""
    baseline = question.text
    for item in question.pii:
        baseline = baseline.replace(item.value, " ")
    return [item.value for item in question.pii if surviving_fragments(item, sent, baseline)]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.text[:40])
def test_routed_to_the_web(
    question: Question, graph: Any, es: Any, redactor: Any, web_provider: FakeWebProvider
) -> None:
    model = ScriptedChatModel(
        script={"router": [route("web_search")], "grader": grade_by_keyword("never")}
    )
    deps = make_deps(es, "t-pii-egress", model, redactor, web_url=web_provider.url)
    state = run_turn(deps, question.text, graph=graph)

    sent_all = [request["query"] for request in web_provider.requests]
    assert state["trace"][:4] == ["begin_turn", "route_question", "redact_query", "web_search"]
    if state.get("web_skipped"):  # too little known-safe text: nothing left the fleet
        assert sent_all == [] and state["web_query"] is None
        assert state["outcome"]["reason"] == "no_relevant_sources"
        return
    [sent] = sent_all
    assert state["web_query"] == sent
    assert leaks(question, sent) == []


def one_per_type(questions: list[Question]) -> list[Question]:
    """The first question carrying each PII type (fewer questions than types, all covered)."""
    chosen: dict[str, Question] = {}
    for question in questions:
        for item in question.pii:
            chosen.setdefault(item.type, question)
    return list(dict.fromkeys(chosen.values()))


@pytest.mark.parametrize("question", one_per_type(QUESTIONS), ids=lambda q: q.text[:40])
def test_rewritten_queries_are_redacted_too(
    question: Question,
    graph: Any,
    es: Any,
    corpus_tenant: str,
    redactor: Any,
    settings: Any,
    web_provider: FakeWebProvider,
) -> None:
    # A rewriter that copies the question, personal data included, into its queries: the
    # rewritten query that goes to the web must be redacted like the user's question.
    model = ScriptedChatModel(
        script={
            "router": [route("vectorstore")],
            "grader": grade_by_keyword("never matches"),
            "rewriter": [{"query": question.text}, {"query": f"{question.text} (retry)"}],
        }
    )
    deps = make_deps(
        es,
        corpus_tenant,
        model,
        redactor,
        web_url=web_provider.url,
        index_prefix=settings.index_prefix,
    )
    state = run_turn(deps, "Why does this keep failing?", graph=graph)

    index_round = ["retrieve", "assess_grades"]
    assert state["trace"] == [
        "begin_turn",
        "route_question",
        *index_round,
        "rewrite_query",
        *index_round,
        "rewrite_query",
        *index_round,
        "redact_query",
        "web_search",
        "assess_grades",
        "abstain",
    ]
    sent_all = [request["query"] for request in web_provider.requests]
    if state.get("web_skipped"):  # too little known-safe text: nothing left the fleet
        assert sent_all == []
        return
    [sent] = sent_all
    assert sent.endswith("(retry)")  # the rewriter's query, not the user's question
    assert leaks(question, sent) == []
