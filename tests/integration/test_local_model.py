"""One run of the whole graph against the real local model server (llama.cpp, SmolLM2-135M).

The tiny model is often wrong, so the test asserts the shape and the guarantees of the
outcome, not its wording: a well-formed answer whose citations point at graded chunks of
the tenant's corpus, or an explicit abstention with a known reason code.
"""

from __future__ import annotations

from typing import Any, get_args

import httpx
import pytest
from langgraph.checkpoint.memory import InMemorySaver

from corpus import TenantRetriever
from pipeline.deps import Deps, Limits
from pipeline.graph import RECURSION_LIMIT, build_graph
from pipeline.state import AbstainReason
from workers.runtime.models import make_models

pytestmark = [pytest.mark.integration, pytest.mark.model]


@pytest.fixture(scope="module")
def model_server(settings: Any) -> str:
    url = settings.llm_base_url
    try:
        httpx.get(f"{url}/models", timeout=5).raise_for_status()
    except httpx.HTTPError as exc:
        pytest.fail(
            f"the local model server is not reachable at {url} ({exc}). "
            "Start it with `infra/up model`.",
            pytrace=False,
        )
    return url


def test_local_model_end_to_end(
    model_server: str, settings: Any, es: Any, corpus_tenant: str, redactor: Any
) -> None:
    limits = Limits(max_rewrites=1, max_generations=1, retrieve_k=3)
    deps = Deps(
        tenant_id=corpus_tenant,
        models=make_models(settings),
        retriever=TenantRetriever(es, corpus_tenant, index_prefix=settings.index_prefix),
        web_search=None,
        redactor=redactor,
        limits=limits,
        allow_web=False,
    )
    state = build_graph(InMemorySaver()).invoke(
        {"question": "What torque does the rotor shaft fastener need?"},
        {"configurable": {"thread_id": "local-model"}, "recursion_limit": RECURSION_LIMIT},
        context=deps,
    )

    outcome = state["outcome"]
    assert state["trace"][:2] == ["begin_turn", "route_question"]
    assert state["trace"][-1] in ("finalize", "abstain")
    assert 1 <= len(state["calls"]) <= limits.max_model_calls
    assert state["rewrites"] <= 1 and state["generations"] <= 1
    if outcome["status"] == "answered":
        assert outcome["answer"].strip() and outcome["citations"]
        graded = {g["document"]["id"] for g in state["graded"] if g["relevant"]}
        for citation in outcome["citations"]:
            assert citation["id"] in graded
            assert citation["locator"].endswith(".md")
    else:
        assert outcome["status"] == "abstained"
        assert outcome["reason"] in get_args(AbstainReason)
        assert outcome["answer"] == "" and outcome["citations"] == []
