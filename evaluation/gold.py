"""The gold-context arm: the graph with retrieval made perfect, to see where answers are lost.

An ablation, as RAG studies measure a reader with the gold passage placed among retrieved
distractors (Liu et al., "Lost in the Middle", TACL 2024): for each answerable item the
retriever returns the item's **gold chunks** first, one per labelled page (the chunk of
that page holding the most of the answer's keyword groups, ties broken by its BM25 score
for the question; :func:`gold_chunks`), then the tenant's own results for the query, as
the graph arm's retriever finds them, up to ``k``. Everything after retrieval is the graph
arm's: the same nodes, prompts, models and limits, run in process on an in-memory
checkpointer (the fleet's queue, lock and checkpoints change no answer), with web search off.

Read beside the graph arm on the same items:

- what the gold arm answers correctly and the graph arm does not was lost to **retrieval**;
- what the gold arm misses was lost **after** it: in grading (its verdicts say whether the
  grader dropped a gold chunk), refinement, generation or verification; the outcome's detail
  names the check that refused it.

Unanswerable kinds have no gold chunk: the arm skips them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from corpus.index import LOCATOR_FIELD, METADATA_FIELD, TENANT_FIELD, TEXT_FIELD
from evaluation.dataset import EvalItem
from evaluation.scoring import Attempt, label_chunk, occurs
from pipeline.documents import Document

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

    from corpus import TenantRetriever
    from pipeline.deps import Retriever
    from workers.settings import Settings

PAGE_DEPTH = 200
"""Chunks of an item's pages read to find the gold ones (a manual page has far fewer)."""


def keyword_groups_in(item: EvalItem, text: str) -> int:
    """How many of ``item``'s answer keyword groups have an alternative in ``text``."""
    return sum(any(occurs(alt, text) for alt in group) for group in item.answer_keywords)


def gold_chunks(es: Elasticsearch, retriever: TenantRetriever, item: EvalItem) -> list[Document]:
    """The gold chunk of each of ``item``'s pages in ``retriever``'s index, best first.

    A page's gold chunk is labelled relevant (:func:`evaluation.scoring.label_chunk`) and
    holds the most keyword groups of the page's chunks; ties go to the higher BM25 score
    for the question. A page with no labelled chunk contributes nothing.

    Returns:
        At most one chunk per page, by (keyword groups, BM25 score) descending; empty for
        an unanswerable kind.

    Raises:
        elasticsearch.ApiError, elasticsearch.TransportError: The search failed.
        pipeline.deps.RetrievalError: A hit is malformed or names another tenant.
    """
    if not item.pages:
        return []
    on_pages = [{"wildcard": {LOCATOR_FIELD: {"value": f"*/{page}"}}} for page in item.pages]
    response = es.search(
        index=retriever.index,
        query={
            "bool": {
                "filter": [
                    {"term": {TENANT_FIELD: retriever.tenant_id}},
                    {"bool": {"should": on_pages, "minimum_should_match": 1}},
                ],
                "should": [{"match": {TEXT_FIELD: item.question}}],
            }
        },
        size=PAGE_DEPTH,
        source_includes=[TEXT_FIELD, METADATA_FIELD],
        track_total_hits=False,
    )
    best: dict[str, tuple[tuple[int, float], Document]] = {}
    for hit in response["hits"]["hits"]:
        doc = retriever.document({**hit, "_score": hit.get("_score") or 0.0})
        if not label_chunk(item, doc["locator"], doc["text"]):
            continue
        rank = (keyword_groups_in(item, doc["text"]), float(doc.get("score") or 0.0))
        if doc["locator"] not in best or rank > best[doc["locator"]][0]:
            best[doc["locator"]] = (rank, doc)
    return [doc for _, doc in sorted(best.values(), key=lambda pair: pair[0], reverse=True)]


class GoldRetriever:
    """A :class:`pipeline.deps.Retriever` that puts the gold chunks before ``inner``'s results.

    Args:
        inner: The tenant's retriever (the graph arm's, BM25 or hybrid).
        gold: The item's gold chunks (:func:`gold_chunks`).
    """

    def __init__(self, inner: Retriever, gold: Sequence[Document]) -> None:
        self.inner = inner
        self.gold = list(gold)

    def count(self) -> int:
        """The tenant's chunk count (``inner``'s)."""
        return self.inner.count()

    def search(self, query: str, k: int) -> list[Document]:
        """The gold chunks, then ``inner``'s results for ``query`` not among them; ``k`` in all.

        Raises:
            pipeline.deps.RetrievalError: ``inner`` failed.
        """
        gold = self.gold[:k]
        ids = {d["id"] for d in gold}
        rest = [d for d in self.inner.search(query, k + len(gold)) if d["id"] not in ids]
        return [*gold, *rest][:k]


class GoldArm:
    """Runs items through the graph in process with :class:`GoldRetriever` (module docstring).

    Args:
        settings: The settings the fleet runs with (models, limits).
        es: The Elasticsearch client.
        retrievers: The graph arm's retriever per corpus.
    """

    def __init__(
        self, settings: Settings, es: Elasticsearch, retrievers: Mapping[str, TenantRetriever]
    ) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        from pipeline.graph import build_graph
        from redaction import build_redactor
        from workers.runtime.models import make_models
        from workers.runtime.resources import limits_from

        self._es = es
        self._retrievers = retrievers
        self._graph = build_graph(InMemorySaver())
        self._models = make_models(settings)
        self._limits = limits_from(settings)
        self._redactor = build_redactor()
        self.run_id = uuid.uuid4().hex[:8]

    def run(self, item: EvalItem) -> Attempt:
        """Answer ``item``'s question with its gold chunks retrieved; the turn as an Attempt.

        Raises:
            elasticsearch.ApiError, elasticsearch.TransportError,
            pipeline.deps.RetrievalError: Finding the gold chunks failed.
        """
        from evaluation.fleet import graded_chunks
        from pipeline.deps import Deps
        from pipeline.graph import RECURSION_LIMIT

        inner = self._retrievers[item.corpus]
        deps = Deps(
            tenant_id=inner.tenant_id,
            models=self._models,
            retriever=GoldRetriever(inner, gold_chunks(self._es, inner, item)),
            web_search=None,
            redactor=self._redactor,
            limits=self._limits,
            allow_web=False,
        )
        thread = f"gold-{self.run_id}-{item.id}"
        config: Any = {"configurable": {"thread_id": thread}, "recursion_limit": RECURSION_LIMIT}
        started = time.perf_counter()
        state = self._graph.invoke({"question": item.question}, config, context=deps)
        attempt = attempt_from_state(state, time.perf_counter() - started)
        return attempt.model_copy(update={"graded": graded_chunks(self._graph, thread, item)})


def attempt_from_state(state: Mapping[str, Any], wall_s: float) -> Attempt:
    """The :class:`Attempt` of a finished in-process turn (its ``outcome`` and ``calls``)."""
    from pipeline.accounting import made, tokens_by_kind

    outcome = state["outcome"]
    kinds = tokens_by_kind(state.get("calls", []))
    answered = outcome["status"] == "answered"
    return Attempt(
        status=outcome["status"],
        answer=outcome["answer"] if answered else "",
        citations=[c["locator"] for c in outcome["citations"]],
        route=state.get("route"),
        reason=outcome["reason"],
        detail=outcome["detail"],
        model_calls=len(made(state.get("calls", []))),
        prompt_tokens=sum(t["input"] for t in kinds.values()),
        cached_prompt_tokens=sum(t["cached"] for t in kinds.values()),
        output_tokens=sum(t["output"] for t in kinds.values()),
        latency_s=wall_s,
    )
