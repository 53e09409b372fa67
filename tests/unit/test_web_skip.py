"""A web query the minimiser withholds: the graph records why and sends nothing (issue 11).

Nodes are called directly with a stand-in runtime; no graph, no models, no services.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from pipeline import answering, edges, nodes, standing
from pipeline.deps import Redaction
from tests.unit.test_edges import state


class _Withholding:
    def redact(self, text: str, deny_terms: Sequence[str] = ()) -> Redaction:
        return Redaction(text="", withheld="too little known-safe text to search on: 1 term")


class _Passing:
    def redact(self, text: str, deny_terms: Sequence[str] = ()) -> Redaction:
        return Redaction(text=text)


class _Provider:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def search(self, query: str, max_results: int) -> list[Any]:
        self.queries.append(query)
        return []


def runtime(redactor: Any, provider: Any = None) -> Any:
    deps = SimpleNamespace(
        tenant_id="t",
        redactor=redactor,
        deny_terms=(),
        web_search=provider,
        limits=SimpleNamespace(web_results=5),
    )
    return SimpleNamespace(context=deps)


def test_a_withheld_query_is_recorded_with_its_reason() -> None:
    update = nodes.redact_query(
        state(query="Ms. Quenvik, +44 20 7946 0958"), runtime(_Withholding())
    )
    assert update["web_query"] is None
    assert update["web_skipped"].startswith("web search skipped: too little known-safe text")


def test_a_sent_query_clears_the_skip() -> None:
    update = nodes.redact_query(state(query="Kubernetes 1.30 OOMKilled"), runtime(_Passing()))
    assert update["web_query"] == "Kubernetes 1.30 OOMKilled" and update["web_skipped"] is None


def test_web_search_sends_nothing_for_a_skipped_round() -> None:
    provider = _Provider()
    skipped = state(web_query=None, web_skipped="web search skipped: too little", queries_tried=[])
    update = nodes.web_search(skipped, runtime(_Passing(), provider))
    assert provider.queries == []
    assert update["documents"] == [] and update["retrieval_error"] is None
    assert update["round_source"] == "web" and "web_used" not in update


def test_after_a_skipped_round_there_is_no_second_web_round() -> None:
    skipped = state(web_skipped="web search skipped: too little")
    assert not standing.web_left(skipped)
    assert edges.fallback(skipped) == "abstain"
    assert edges.after_grading(skipped | {"round_source": "web"}) == "abstain"
    assert standing.abstain_reason(skipped) == "no_relevant_sources"


def test_the_abstention_names_the_skip() -> None:
    skipped = state(web_skipped="web search skipped: too little", queries_tried=["q"])
    update = answering.abstain(skipped, runtime(_Passing()))
    assert update["outcome"]["reason"] == "no_relevant_sources"
    assert "web search skipped: too little" in update["outcome"]["detail"]
