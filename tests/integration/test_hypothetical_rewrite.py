"""The hypothetical rewrite (HyDE) with scripted models, the real tenant index and the real
redactor: the first rewrite searches the question beside a guessed answer passage, which
only retrieval reads; later rewrites and the web go on as before."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.accounting import calls_by_kind
from pipeline.deps import Limits
from tests.fakes.chat import ScriptedChatModel, grade_by_keyword
from tests.fakes.web_provider import web_result
from tests.integration.graph_helpers import (
    ONE_REWRITE_TRACE,
    answer,
    make_deps,
    route,
    run_turn,
    verdict,
)

pytestmark = pytest.mark.integration

SPINDLE_Q = "How tight should the spindle bolt be?"
"""A paraphrase of the test corpus's torque fact: its own words find no chunk stating it."""

GUESS = "Tighten the rotor shaft fastener to 40 newton metres with a torque wrench."
"""A hypothetical passage with the manual's words and a wrong value."""


def hyde_limits(**changes: Any) -> Limits:
    return Limits(retrieve_k=4, hypothetical_rewrite=True, **changes)


@pytest.fixture
def deps_for(es: Any, corpus_tenant: str, redactor: Any, settings: Any):
    def build(model: ScriptedChatModel, **kw: Any) -> Any:
        kw.setdefault("limits", hyde_limits())
        return make_deps(
            es, corpus_tenant, model, redactor, index_prefix=settings.index_prefix, **kw
        )

    return build


def test_the_guessed_passage_finds_the_chunk_and_never_reaches_an_answer(
    deps_for: Any,
) -> None:
    model = ScriptedChatModel(
        script={
            "grader": grade_by_keyword("newton metres"),
            "hypothesis": [{"passage": GUESS}],
            "generator": [answer(("The rotor shaft fastener needs 12 newton metres.", [1]))],
            "verifier": [verdict(True)],
        }
    )
    state = run_turn(deps_for(model, allow_web=False), SPINDLE_Q)

    assert state["trace"] == ONE_REWRITE_TRACE
    # The second round searched the question and the guess together; the query stayed the
    # question, and the rewriter was never asked.
    assert state["queries_tried"] == [SPINDLE_Q, f"{SPINDLE_Q} {GUESS}"]
    assert state["query"] == SPINDLE_Q
    assert state["hypothesis"] == GUESS
    assert "rewriter" not in model.roles_called()
    assert calls_by_kind(state["calls"])["hypothesis"] == 1
    assert state["outcome"]["status"] == "answered"
    # Its wrong value is in no prompt after it: graders, generator and verifier see the
    # question and the sources only.
    later = [text for role, text in model.calls if role != "hypothesis"]
    assert later and not any("40 newton" in text for text in later)


def test_the_guess_never_leaves_for_the_web(deps_for: Any, web_provider: Any) -> None:
    web_provider.set_results(
        [web_result("https://bolts.example/spindle", "Spindle bolts", "Spindle bolts: 9 Nm.")]
    )
    model = ScriptedChatModel(
        script={
            "router": [route("vectorstore")],
            "grader": grade_by_keyword("9 Nm"),
            "hypothesis": [{"passage": "Torque the spindle bolt of project Hydra to 40 Nm."}],
            "generator": [answer(("Spindle bolts take 9 Nm.", [1]))],
            "verifier": [verdict(True)],
        }
    )
    deps = deps_for(model, web_url=web_provider.url, limits=hyde_limits(max_rewrites=1))
    state = run_turn(deps, SPINDLE_Q)

    assert state["trace"][4:8] == ["rewrite_query", "retrieve", "assess_grades", "redact_query"]
    assert state["outcome"]["status"] == "answered"
    [request] = web_provider.requests
    assert "Hydra" not in request["query"] and "40" not in request["query"]
    assert "spindle bolt" in request["query"].lower()


def test_a_later_rewrite_asks_the_rewriter_and_drops_the_guess(deps_for: Any) -> None:
    model = ScriptedChatModel(
        script={
            "grader": grade_by_keyword("newton metres"),
            "hypothesis": [{"passage": "Spindle bolts are fitted by hand."}],
            "rewriter": [{"query": "rotor shaft fastener torque"}],
            "generator": [answer(("The rotor shaft fastener needs 12 newton metres.", [1]))],
            "verifier": [verdict(True)],
        }
    )
    state = run_turn(deps_for(model, allow_web=False), SPINDLE_Q)

    assert state["queries_tried"] == [
        SPINDLE_Q,
        f"{SPINDLE_Q} Spindle bolts are fitted by hand.",
        "rotor shaft fastener torque",
    ]
    assert state["hypothesis"] is None
    assert model.roles_called().count("hypothesis") == 1
    assert state["rewrites"] == 2 and state["outcome"]["status"] == "answered"


def test_an_unusable_guess_falls_back_to_the_rewriter(deps_for: Any) -> None:
    model = ScriptedChatModel(
        script={
            "grader": grade_by_keyword("newton metres"),
            "hypothesis": ["Here is a passage: the bolt is tight."],
            "rewriter": [{"query": "rotor shaft fastener torque"}],
            "generator": [answer(("The rotor shaft fastener needs 12 newton metres.", [1]))],
            "verifier": [verdict(True)],
        }
    )
    state = run_turn(deps_for(model, allow_web=False), SPINDLE_Q)

    assert state["queries_tried"] == [SPINDLE_Q, "rotor shaft fastener torque"]
    assert calls_by_kind(state["calls"]).items() >= {("hypothesis", 1), ("rewriter", 1)}
    assert state["rewrites"] == 1 and state["outcome"]["status"] == "answered"
