"""Model-call accounting and the judges' failure policy, with scripted models."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pipeline.accounting import calls_by_kind, worst_case_calls
from pipeline.deps import Limits
from pipeline.standing import spent
from tests.fakes.chat import ScriptedChatModel, grade_by_keyword
from tests.fakes.web_provider import web_result
from tests.integration.graph_helpers import answer, make_deps, route, run_turn, verdict

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"
TORQUE_ANSWER = answer(("The fastener needs 12 newton metres.", [1]))
NOT_JSON = "sorry, I cannot answer in JSON"


@pytest.fixture
def deps_for(es: Any, corpus_tenant: str, redactor: Any, settings: Any) -> Any:
    def build(model: ScriptedChatModel, **kw: Any) -> Any:
        return make_deps(
            es, corpus_tenant, model, redactor, index_prefix=settings.index_prefix, **kw
        )

    return build


def grader_failing_first(times: int, keyword: str = "newton metres") -> Any:
    """Unparseable replies for the first ``times`` calls on each chunk, then a real grade."""
    seen: Counter[str] = Counter()
    grade = grade_by_keyword(keyword)

    def reply(user: str) -> Any:
        seen[user] += 1
        return NOT_JSON if seen[user] <= times else grade(user)

    return reply


class TestJudgeFailurePolicy:
    def test_grader_gets_one_retry(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grader_failing_first(1),
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        k = len(state["documents"])
        assert state["outcome"]["status"] == "answered"
        assert calls_by_kind(state["calls"])["grader"] == 2 * k
        assert [c["ok"] for c in state["calls"] if c["kind"] == "grader"].count(False) == k

    def test_grader_unparseable_twice_counts_as_not_relevant(self, deps_for: Any) -> None:
        bad_chunk: list[str] = []

        def grade(user: str) -> Any:
            # Every reply about one chunk without the answer is unusable; the rest grade.
            source = user.split("<source", 1)[-1]
            if not bad_chunk and "newton metres" not in source:
                bad_chunk.append(source)
            return NOT_JSON if bad_chunk == [source] else grade_by_keyword("newton metres")(user)

        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade,
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        [unusable] = [g for g in state["graded"] if "invalid grader reply" in g["reason"]]
        assert (unusable["score"], unusable["relevant"], unusable["usable"]) == (0.0, False, False)
        assert state["outcome"]["status"] == "answered"  # the other chunks carried the turn

    def test_no_usable_grader_reply_abstains_model_unusable(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={"router": [route("vectorstore")], "grader": grader_failing_first(99)}
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        assert state["outcome"]["reason"] == "model_unusable"
        assert all("invalid grader reply" in g["reason"] for g in state["graded"])
        assert "rewriter" not in calls_by_kind(state["calls"])  # a broken model is not retried

    def test_verifier_unparseable_twice_fails_closed(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [NOT_JSON, NOT_JSON],
            }
        )
        state = run_turn(deps_for(model, limits=Limits(max_generations=1)), TORQUE_Q)
        assert state["outcome"]["status"] == "abstained"
        assert state["outcome"]["reason"] == "ungrounded"
        assert calls_by_kind(state["calls"])["verifier"] == 2

    def test_verifier_retry_can_pass(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [NOT_JSON, verdict(True)],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        assert state["outcome"]["status"] == "answered"


@pytest.mark.parametrize("hypothetical", [False, True], ids=["rewriter", "hypothetical"])
def test_worst_case_call_count_matches_the_formula(
    deps_for: Any, web_provider: Any, hypothetical: bool
) -> None:
    """Every loop at its bound and every judge retried: exactly the formula's count.

    With the hypothetical rewrite on, its passage is unusable, so the rewriter is asked too.
    """
    k, rewrites, w, generations = 2, 2, 2, 2
    web_provider.set_results(
        [
            web_result(
                f"https://example.org/{i}",
                f"Page {i}",
                f"WEBFACT {i}: the frobnicator rotor fastener takes 12 newton metres.",
            )
            for i in range(w)
        ]
    )
    seen: Counter[str] = Counter()

    def grade_index(user: str) -> Any:  # each ask: unusable, then a usable "not relevant"
        seen[user] += 1
        return NOT_JSON if seen[user] % 2 else grade_by_keyword("WEBFACT")(user)

    grade_web = grader_failing_first(1, keyword="WEBFACT")
    model = ScriptedChatModel(
        script={
            "router": [route("vectorstore")],
            "grader": lambda user: grade_web(user) if "WEBFACT" in user else grade_index(user),
            "rewriter": [
                {"query": "frobnicator rotor cover springs"},
                {"query": "bolts grease parts catalogue"},
            ],
            "generator": [answer(("The rotor fastener takes 12 newton metres.", [1]))]
            * generations,
            "verifier": [NOT_JSON] * (2 * generations),
            "hypothesis": [NOT_JSON],
        }
    )
    limits = Limits(
        retrieve_k=k,
        max_rewrites=rewrites,
        web_results=w,
        max_generations=generations,
        max_model_calls=100,
        hypothetical_rewrite=hypothetical,
    )
    state = run_turn(
        deps_for(model, web_url=web_provider.url, limits=limits),
        "frobnicator rotor maintenance safety",
    )

    assert state["outcome"]["reason"] == "ungrounded"
    assert len(state["documents"]) == w  # the web round
    worst = worst_case_calls(k, rewrites, w, generations, hypothetical_rewrite=hypothetical)
    assert spent(state) == worst == 25 + hypothetical
    assert calls_by_kind(state["calls"]) == {
        "router": 1,
        "grader": 16,
        "rewriter": 2,
        "generator": 2,
        "verifier": 4,
    } | ({"hypothesis": 1} if hypothetical else {})


def test_default_budget_covers_the_worst_case() -> None:
    limits = Limits()
    for hypothetical in (False, True):
        worst = worst_case_calls(
            limits.retrieve_k,
            limits.max_rewrites,
            limits.web_results,
            limits.max_generations,
            hypothetical_rewrite=hypothetical,
        )
        assert worst <= limits.max_model_calls


def test_a_thread_out_of_calls_abstains_without_calling(deps_for: Any) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from pipeline.graph import build_graph

    model = ScriptedChatModel(
        script={
            "router": lambda _: route("vectorstore"),
            "grader": grade_by_keyword("newton metres"),
            "generator": lambda _: TORQUE_ANSWER,
            "verifier": lambda _: verdict(True),
            "condenser": lambda user: {"question": user.rsplit("Latest message: ", 1)[-1]},
        }
    )
    deps = deps_for(model, limits=Limits(retrieve_k=1, max_thread_calls=5))
    graph = build_graph(InMemorySaver())
    turns = [
        run_turn(deps, q, graph=graph, thread_id="th-budget")
        for q in (TORQUE_Q, "And the bearings?", "Anything else?")
    ]

    assert turns[0]["outcome"]["status"] == "answered" and spent(turns[0]) == 3
    assert turns[1]["outcome"]["reason"] == "budget_exhausted"
    assert turns[2]["trace"] == ["begin_turn", "abstain"] and spent(turns[2]) == 0
    assert turns[2]["outcome"]["reason"] == "budget_exhausted"
    assert turns[2]["thread_calls"] == spent(turns[0]) + spent(turns[1])
