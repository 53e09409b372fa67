"""What leaves for web search, under each tenant's policy: the runner in-process against
the real Postgres, Redis and Elasticsearch, a scripted model, and the local stand-in for
the web-search provider."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from corpus import index_name, ingest_paths
from pipeline.deps import Models
from tests.conftest import forget_tenant
from tests.fakes.chat import ScriptedChatModel, echo_condenser, grade_by_keyword
from tests.fakes.web_provider import FakeWebProvider, web_result
from tests.integration.graph_helpers import answer, route, verdict
from workers.cli.main import app as cli
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.runner import answer_job
from workers.core.tenants import ensure_tenant
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.resources import Resources

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).parents[1] / "data" / "corpus"
RELEASE_Q = "Which PostgreSQL 16.2 fixes matter for Project Bluebird? Reply to jane.doe@example.com"


@pytest.fixture(scope="module")
def provider() -> Iterator[FakeWebProvider]:
    with FakeWebProvider() as server:
        server.set_results(
            [
                web_result("https://evil.example/post", "Evil", "EVIL-PAYLOAD 16.2 fixes"),
                web_result("https://www.postgresql.org/about/news/", "News", "16.2 fixes CVE"),
            ]
        )
        yield server


@pytest.fixture(scope="module")
def model() -> ScriptedChatModel:
    return ScriptedChatModel(
        script={
            "router": lambda _: route("web_search"),
            "grader": grade_by_keyword("16.2"),
            "generator": lambda _: answer(("16.2 fixes a CVE.", [1])),
            "verifier": lambda _: verdict(True),
            "condenser": echo_condenser,
            "rewriter": lambda _: {"query": "PostgreSQL 16.2 fixes"},
        }
    )


@pytest.fixture(scope="module")
def res(
    settings: Any, migrated_db: str, provider: FakeWebProvider, model: ScriptedChatModel
) -> Iterator[Resources]:
    web = settings.model_copy(update={"web_search_url": provider.url})
    resources = Resources.create(web, models=Models.single(model))
    yield resources
    resources.close()


@pytest.fixture
def tenant(res: Resources, es: Any, settings: Any) -> Iterator[str]:
    """A fresh tenant with its own copy of the test corpus."""
    tenant_id = f"t-egress-{uuid.uuid4().hex[:8]}"
    ingest_paths(es, tenant_id, [CORPUS], index_prefix=settings.index_prefix)
    ensure_tenant(res.sessions, tenant_id)
    yield tenant_id
    es.indices.delete(index=index_name(tenant_id, settings.index_prefix), ignore_unavailable=True)
    forget_tenant(settings, tenant_id)


def set_policy(res: Resources, tenant_id: str, **values: Any) -> None:
    with transaction(res.sessions) as session:
        row = repo.get_tenant(session, tenant_id)
        assert row is not None
        for key, value in values.items():
            setattr(row, key, value)


def test_a_tenant_with_web_search_off_never_egresses(
    res: Resources, tenant: str, provider: FakeWebProvider, model: ScriptedChatModel
) -> None:
    set_policy(res, tenant, web_search=False)
    provider.reset()
    # The router asks for the web, and nothing in the index matches "16.2" (an incorrect
    # round that would otherwise fall back to the web): neither path reaches it.
    job = new_job(tenant, f"th-{tenant}", RELEASE_Q)
    body = answer_job(job, context_of(res)).outcome.body  # type: ignore[union-attr]
    assert provider.requests == []
    assert body["web_used"] is False and body["route"] != "web_search"
    with res.sessions() as session:
        assert list(repo.list_egress(session, tenant, None, 10)) == []


def test_egress_is_redacted_audited_and_domain_filtered(
    res: Resources, tenant: str, provider: FakeWebProvider, model: ScriptedChatModel
) -> None:
    set_policy(res, tenant, deny_terms=["Project Bluebird"], web_domain_denylist=["evil.example"])
    provider.reset()
    job = new_job(tenant, f"th-{tenant}", RELEASE_Q)
    body = answer_job(job, context_of(res)).outcome.body  # type: ignore[union-attr]

    [sent] = [r["query"] for r in provider.requests]
    for secret in ("Bluebird", "jane", "example.com", "<", ">"):
        assert secret.lower() not in sent.lower(), sent
    assert "16.2" in sent  # what the search needs survives
    listed = CliRunner().invoke(cli, ["egress", "list", "--tenant", tenant, "--json"])
    assert listed.exit_code == 0, listed.output
    [row] = [json.loads(line) for line in listed.output.splitlines()]
    assert (row["query"], row["job_id"], row["provider"]) == (sent, job.job_id, "127.0.0.1")
    # The denied domain's result never reached a grader, the generator or the outcome.
    assert not any("EVIL-PAYLOAD" in user for _, user in model.calls)
    assert body["status"] == "answered"
    assert {c["locator"] for c in body["citations"]} == {"https://www.postgresql.org/about/news/"}
