"""Attack tests: tenant B tries every way we know to reach tenant A's documents.

Two tenants share vocabulary (both have a "Falcon" project). Tenant B's jobs run through
the real runner, Elasticsearch, Postgres checkpointer and Redis, with a scripted model that
grades every chunk relevant (a leaked chunk would be used), a rewriter that turns the
attack into the next search, and no web. The secret of tenant A must never appear in B's
graph state, in any prompt B's run sends, or in B's outcome. Isolation is checked where it
happens, at retrieval, as well: the retriever itself is attacked with each string.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from corpus import TenantRetriever, index_name, ingest_paths
from pipeline.deps import Models
from tests.conftest import forget_tenant
from tests.fakes.chat import ScriptedChatModel, echo_condenser
from tests.integration.graph_helpers import answer, route, verdict
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.runner import answer_job
from workers.core.tenants import ensure_tenant
from workers.runtime.resources import Resources

pytestmark = pytest.mark.integration

SECRET = "ORCHID-7731"
A_DOC = f"""# Falcon launch codes

The Falcon launch code is {SECRET}. Only the Falcon launch team may read this page.
"""
B_DOC = """# Falcon project plan

The Falcon project launch is planned for the spring. The launch team meets on Mondays.
"""


@pytest.fixture(scope="module")
def tenants(es: Any, settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    a, b = (f"t-iso-{side}-{uuid.uuid4().hex[:6]}" for side in "ab")
    for tenant, text in ((a, A_DOC), (b, B_DOC)):
        folder = tmp_path_factory.mktemp(tenant)
        (folder / "falcon.md").write_text(text)
        report = ingest_paths(es, tenant, [folder], index_prefix=settings.index_prefix)
        assert report.ok and report.chunks >= 1
    yield a, b
    for tenant in (a, b):
        es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)
        forget_tenant(settings, tenant)


ATTACKS = [
    "The Falcon launch code is",  # A's exact phrase
    "Falcon launch codes",  # A's document title
    "What launch code does tenant {a} use for Falcon?",  # names tenant A
    "*",
    "ORCHID*",
    "text:ORCHID* OR metadata.tenant_id:{a}",
    '{{"query": {{"match_all": {{}}}}}}',
    "_all",
    "crag-{a}",
    "{a}",
    '" OR tenant_id:"{a}',
    "falcon AND (code OR *) _index:crag-{a}",
]


@pytest.fixture(scope="module")
def model() -> ScriptedChatModel:
    return ScriptedChatModel(
        script={
            "router": lambda _: route("vectorstore"),
            # Every chunk graded relevant: isolation must not rely on the grader.
            "grader": lambda _: {"score": 0.95, "reason": "looks relevant"},
            "generator": lambda _: answer(("It is planned.", [1])),
            "verifier": lambda _: verdict(True, resolves=False),  # forces a rewrite round
            "condenser": echo_condenser,
            # The rewrite is an attack too: A's phrase, wildcards, every index.
            "rewriter": lambda _: {"query": "The Falcon launch code is * _all crag-*"},
        }
    )


@pytest.fixture(scope="module")
def res(settings: Any, migrated_db: str, model: ScriptedChatModel) -> Iterator[Resources]:
    no_web = settings.model_copy(update={"web_search_url": None})
    resources = Resources.create(no_web, models=Models.single(model))
    yield resources
    resources.close()


@pytest.mark.parametrize("attack", ATTACKS)
def test_the_retriever_never_returns_another_tenants_chunks(
    es: Any, settings: Any, tenants: Any, attack: str
) -> None:
    a, b = tenants
    retriever = TenantRetriever(es, b, index_prefix=settings.index_prefix)
    docs = retriever.search(attack.format(a=a), 10)
    assert all(d["tenant_id"] == b and SECRET not in d["text"] for d in docs)
    # Control: the same search on A's side does find the secret, so the attack is real.
    if "Falcon launch code" in attack:
        mine = TenantRetriever(es, a, index_prefix=settings.index_prefix).search(attack, 10)
        assert any(SECRET in d["text"] for d in mine)


@pytest.mark.parametrize("attack", ATTACKS)
def test_no_chunk_of_a_reaches_bs_state_prompts_or_outcome(
    res: Resources, tenants: Any, model: ScriptedChatModel, attack: str
) -> None:
    a, b = tenants
    ensure_tenant(res.sessions, b)
    question = attack.format(a=a)
    thread = f"th-{b}-{uuid.uuid4().hex[:6]}"
    before = len(model.calls)
    result = answer_job(new_job(b, thread, question, allow_web=False), context_of(res))
    assert result.outcome is not None
    outcome = json.dumps(result.outcome.body)
    state = res.graph.get_state({"configurable": {"thread_id": f"{b}:{thread}"}}).values
    prompts = [user for _, user in model.calls[before:]]
    assert any("Falcon project launch" in p for p in prompts)  # B's own chunk was used
    assert SECRET not in outcome
    assert "The Falcon launch code is * _all crag-*" in state["queries_tried"]  # it ran
    assert SECRET not in json.dumps(state, default=str)
    assert not any(SECRET in p for p in prompts)
    docs = [*state.get("documents", []), *(g["document"] for g in state.get("graded", []))]
    assert {d["tenant_id"] for d in docs} <= {b}
