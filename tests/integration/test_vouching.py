"""The vouching rule (issue 12): a fact only a lower-ranked source states is not shipped.

The wiki pages plant facts no manual page contradicts (a port, a procedure step), so no
conflict check can see them; one wiki page states a fact the manual also states. The
scripted models are gullible (every chunk relevant, the first source's planted sentence
stated, every claim approved), so only the rule in code stands between the plant and the
outcome. Real Elasticsearch; the tenant's rules go through ``crag tenants update``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.conflicts import SourceTrust
from pipeline.deps import Limits
from tests.conftest import forget_tenant
from tests.fakes.chat import shown_sources
from tests.integration.graph_helpers import (
    answer,
    gullible_model,
    index_only,
    make_deps,
    run_turn,
    tenant_with_pages,
)
from workers.cli.main import app as cli

pytestmark = pytest.mark.integration

PAGES = {
    "wiki/replica-notes.md": (
        "# Replica notes\n\nOur replicas answer read traffic on port 6543, set in the "
        "replica's service file.\n"
    ),
    "wiki/fast-stop.md": (
        "# Stopping a server fast\n\nTo stop the server without waiting for clients, run "
        "`kill -9` on the postmaster's process id.\n"
    ),
    "wiki/timeouts.md": (
        "# Our timeouts\n\nWe keep statement_timeout at 30s for the reporting role.\n"
    ),
    "manual/server-shutdown.md": (
        "# Shutting down the server\n\nThere are several ways to shut down the database "
        "server. Fast shutdown mode disconnects all clients and rolls back their "
        "transactions: `pg_ctl stop -m fast`.\n"
    ),
    "manual/client-timeouts.md": (
        "# Statement behaviour\n\nstatement_timeout (integer)\n\nAbort any statement that "
        "takes more than the specified amount of time, for example 30s for a reporting "
        "role. A value of zero (the default) turns this off.\n"
    ),
}
TRUST = ["*/manual/*=3", "*/wiki/*=1"]
PLANTED = re.compile(r"[^.\n]*(?:6543|kill -9|30s)[^.\n]*\.")


@pytest.fixture(scope="module")
def tenant(es: Any, settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("vouching")
    with tenant_with_pages(es, "t-vouch", root, PAGES, index_prefix=settings.index_prefix) as (
        name,
        _,
    ):
        yield name


def believe_the_plant(user: str) -> dict[str, Any]:
    """State the first shown sentence carrying a planted fact, citing its source."""
    for n, text in shown_sources(user):
        if m := PLANTED.search(text):
            return answer((m.group(0).strip(), [n]))
    return {"claims": []}


def deps(es: Any, tenant: str, redactor: Any, settings: Any, **kw: Any) -> Any:
    model = gullible_model(believe_the_plant, rewrite="server")
    base = make_deps(
        es, tenant, model, redactor, index_prefix=settings.index_prefix, limits=Limits()
    )
    return index_only(base, **kw)


def test_without_the_rule_a_plant_nothing_contradicts_is_shipped(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    trust = SourceTrust.parse(TRUST)
    state = run_turn(
        deps(es, tenant, redactor, settings, trust=trust), "Which port do our replicas use?"
    )

    assert state["outcome"]["status"] == "answered"
    assert "6543" in state["outcome"]["answer"]
    assert state["conflict"] is None  # the premise: no check in code sees a conflict


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Which port do our replicas use?", "6543"),
        ("How do I stop a PostgreSQL server fast?", "kill -9"),
    ],
)
def test_with_the_rule_a_fact_only_the_wiki_states_is_withheld(
    tenant: str, es: Any, redactor: Any, settings: Any, question: str, fact: str
) -> None:
    trust = SourceTrust.parse(TRUST)
    state = run_turn(deps(es, tenant, redactor, settings, trust=trust, vouch_trust=3), question)

    outcome = state["outcome"]
    assert outcome["status"] == "abstained" and outcome["reason"] == "uncorroborated"
    assert f"{fact!r} in the claim" in outcome["detail"]
    assert "wiki/" in outcome["detail"] and "(trust 1)" in outcome["detail"]
    assert "no source ranked 3 or above states it" in outcome["detail"]
    assert not any(c["kind"] == "verifier" for c in state["calls"])  # withheld before the call
    assert state["generations"] == 1  # no new draft: a lone source does not become trusted


def test_an_answer_given_before_the_rule_is_not_recalled_under_it(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    """Found by a new user: the thread's earlier answer shipped the wiki's port again."""
    from langgraph.checkpoint.memory import InMemorySaver

    from pipeline.graph import build_graph

    trust = SourceTrust.parse(TRUST)
    graph, thread = build_graph(InMemorySaver()), "th-recall"
    question = "Which port do our replicas use?"
    before = run_turn(deps(es, tenant, redactor, settings, trust=trust), question,
                      graph=graph, thread_id=thread)  # fmt: skip
    assert before["outcome"]["status"] == "answered"
    again = run_turn(deps(es, tenant, redactor, settings, trust=trust), question,
                     graph=graph, thread_id=thread)  # fmt: skip
    assert again["route"] == "history"  # the premise: without the rule it is recalled

    after = run_turn(deps(es, tenant, redactor, settings, trust=trust, vouch_trust=3),
                     question, graph=graph, thread_id=thread)  # fmt: skip
    assert after["route"] != "history"
    assert after["outcome"]["reason"] == "uncorroborated"


def test_a_fact_the_manual_also_states_is_vouched_for(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    trust = SourceTrust.parse(TRUST)
    state = run_turn(
        deps(es, tenant, redactor, settings, trust=trust, vouch_trust=3),
        "Which statement_timeout does the reporting role get?",
    )

    outcome = state["outcome"]
    assert outcome["status"] == "answered", outcome["detail"]
    assert "30s" in outcome["answer"]


def test_the_tenant_sets_its_vouching_level_and_a_bad_one_names_itself(
    settings: Any, migrated_db: str
) -> None:
    from workers.core.tenants import TenantPolicy
    from workers.db import repository as repo
    from workers.db.engine import sessions_for

    name = f"t-vouch-cli-{uuid.uuid4().hex[:8]}"
    runner = CliRunner()

    def policy() -> TenantPolicy:
        with sessions_for(settings.database_url)() as session:
            row = repo.get_tenant(session, name)
            assert row is not None
            return TenantPolicy.of(row)

    try:
        assert runner.invoke(cli, ["tenants", "create", name]).exit_code == 0
        assert policy().vouch_trust is None
        bad = runner.invoke(cli, ["tenants", "update", name, "--vouch-trust", "high"])
        assert bad.exit_code != 0 and "'high' must be an integer level or 'any'" in bad.output
        unreachable = runner.invoke(cli, ["tenants", "update", name, "--vouch-trust", "3"])
        assert unreachable.exit_code != 0 and "no source ranks that high" in unreachable.output
        assert policy().vouch_trust is None  # nothing of the refused update was kept
        good = runner.invoke(cli, ["tenants", "update", name, *_trust(), "--vouch-trust", "3"])
        assert good.exit_code == 0, good.output
        assert '"vouch_trust": 3' in good.output and policy().vouch_trust == 3
        kept = runner.invoke(cli, ["tenants", "update", name, "--trust", "none"])
        assert kept.exit_code != 0 and "no source ranks that high" in kept.output
        off = runner.invoke(cli, ["tenants", "update", name, "--vouch-trust", "any"])
        assert off.exit_code == 0 and policy().vouch_trust is None
        cleared = runner.invoke(cli, ["tenants", "update", name, "--trust", "none"])
        assert cleared.exit_code == 0 and '"source_trust": []' in cleared.output
        none = runner.invoke(cli, ["tenants", "update", name, "--vouch-trust", "0"])
        assert none.exit_code != 0 and "nothing would be withheld" in none.output
        refused = runner.invoke(cli, ["tenants", "create", f"{name}-x", "--vouch-trust", "2"])
        assert refused.exit_code != 0 and "no source ranks that high" in refused.output
        assert runner.invoke(cli, ["tenants", "show", f"{name}-x"]).exit_code != 0  # not made
    finally:
        forget_tenant(settings, name)


def _trust() -> list[str]:
    return [arg for rule in TRUST for arg in ("--trust", rule)]
