"""Building and running the graph in tests: real retriever and redactor, scripted models."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from elasticsearch import Elasticsearch
from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.memory import InMemorySaver

from corpus import TenantRetriever, index_name, ingest_paths
from pipeline.deps import CircuitBreaker, Deps, Limits, Models
from pipeline.graph import RECURSION_LIMIT, build_graph
from pipeline.schemas import GeneratedAnswer
from tests.fakes.chat import ScriptedChatModel, echo_condenser, grade_by_keyword
from websearch import TavilySearch


def make_deps(
    es: Elasticsearch,
    tenant: str,
    model: BaseChatModel | Models,
    redactor: Any,
    *,
    web_url: str | None = None,
    limits: Limits | None = None,
    allow_web: bool = True,
    index_prefix: str = "crag-",
    breaker: CircuitBreaker | None = None,
) -> Deps:
    """Deps for a test run: one model in every role (or the given ``Models``)."""
    web = TavilySearch(web_url, "test-key", tenant_id=tenant) if web_url else None
    return Deps(
        tenant_id=tenant,
        models=model if isinstance(model, Models) else Models.single(model),
        retriever=TenantRetriever(es, tenant, index_prefix=index_prefix),
        web_search=web,
        redactor=redactor,
        limits=limits or Limits(retrieve_k=4),
        allow_web=allow_web,
        breaker=breaker,
    )


def run_turn(
    deps: Deps, question: str, *, graph: Any = None, thread_id: str | None = None
) -> dict[str, Any]:
    """Invoke one turn and return the final state."""
    graph = graph or build_graph(InMemorySaver())
    config: Any = {
        "configurable": {"thread_id": thread_id or uuid.uuid4().hex},
        "recursion_limit": RECURSION_LIMIT,
    }
    return graph.invoke({"question": question}, config, context=deps)


ONE_REWRITE_TRACE = [
    "begin_turn",
    "route_question",
    "retrieve",
    "assess_grades",
    "rewrite_query",
    "retrieve",
    "assess_grades",
    "generate",
    "verify",
    "finalize",
]
"""The node path of a turn whose first round keeps nothing and whose one rewrite finds the
answer (web search off)."""


def route(to: str) -> dict[str, str]:
    return {"route": to, "reason": "scripted"}


def answer(*claims: tuple[str, list[int]]) -> dict[str, Any]:
    """A generator reply (``GeneratedAnswer``): the claims with their source numbers.

    Not validated here: some tests script replies the graph must refuse (a source number
    out of range is the model's mistake to catch, not the script's).
    """
    assert set(GeneratedAnswer.model_fields) == {"claims"}, "the generator schema changed"
    return {"claims": [{"text": t, "sources": s} for t, s in claims]}


def verdict(*supported: bool, resolves: bool = True) -> dict[str, Any]:
    return {
        "claims": [{"claim": i, "supported": s} for i, s in enumerate(supported, 1)],
        "resolves_question": resolves,
    }


TORQUE_ANSWER = answer(
    ("The rotor shaft fastener needs 12 newton metres.", [1]),
)
"""The generator's reply to the torque question of ``tests/data/corpus``."""


def torque_model(generator: Any = None, **script: Any) -> ScriptedChatModel:
    """The scripted model most fleet tests use: it answers the torque question of the test
    corpus from its index (router: vectorstore; grader: chunks mentioning newton metres;
    generator: :data:`TORQUE_ANSWER` unless ``generator`` is given; verifier: supported).
    ``script`` overrides or adds roles."""
    return ScriptedChatModel(
        script={
            "router": lambda _: route("vectorstore"),
            "grader": grade_by_keyword("newton metres"),
            "generator": generator or (lambda _: TORQUE_ANSWER),
            "verifier": lambda _: verdict(True),
            "condenser": echo_condenser,
            **script,
        }
    )


AGREEING_WIKI = "# Checkpoint notes\n\nThe default checkpoint_timeout is 5min; we keep it.\n"
AGREEING_MANUAL = (
    "# Checkpoints\n\ncheckpoint_timeout (integer)\n\nMaximum time between automatic WAL "
    "checkpoints. The default is five minutes (5min).\n"
)
"""A wiki page and a manual entry that agree on a default, for the poisoned-source tests."""


def gullible_model(
    generator: Any, *, rewrite: str = "the setting's value", on_grade: Any = None
) -> ScriptedChatModel:
    """Scripted models that believe their sources, for the poisoned-source tests.

    Router: vectorstore; grader: every chunk relevant (0.9), calling ``on_grade()`` first
    when given; ``generator`` writes the answer; the rewriter asks for ``rewrite``; the
    verifier approves every claim. Only the checks in code stand between a plant and the
    outcome.
    """

    def grade(_: str) -> dict[str, Any]:
        if on_grade is not None:
            on_grade()
        return {"score": 0.9, "reason": "looks relevant"}

    return ScriptedChatModel(
        script={
            "router": lambda _: route("vectorstore"),
            "grader": grade,
            "generator": generator,
            "rewriter": lambda _: {"query": rewrite},
            "verifier": lambda _: verdict(True, True, True, True),
        }
    )


def index_only(deps: Deps, **changes: Any) -> Deps:
    """``deps`` with web search off, and ``changes`` (trust, limits, …) applied."""
    return dataclasses.replace(deps, allow_web=False, web_search=None, **changes)


@contextmanager
def tenant_with_pages(
    es: Elasticsearch, prefix: str, root: Path, pages: dict[str, str], *, index_prefix: str
) -> Iterator[tuple[str, int]]:
    """A fresh tenant whose index holds ``pages`` (path under ``root`` -> Markdown text).

    Yields the tenant's name and its chunk count; its index is deleted afterwards.
    """
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    for path, text in pages.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    report = ingest_paths(es, name, [root], index_prefix=index_prefix)
    assert report.ok, report
    try:
        yield name, report.chunks
    finally:
        es.indices.delete(index=index_name(name, index_prefix), ignore_unavailable=True)
