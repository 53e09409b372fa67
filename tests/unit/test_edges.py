"""Pure routing functions on hand-made states: no graph, no models."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.types import Send

from pipeline import edges, standing
from pipeline.documents import Document
from pipeline.state import RESET, append_or_reset
from tests.documents import make_doc


def state(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "question": "q",
        "budget": {
            "max_rewrites": 2,
            "max_generations": 2,
            "max_model_calls": 20,
            "max_thread_calls": 1000,
            "min_relevant": 1,
            "upper_threshold": 0.7,
            "lower_threshold": 0.3,
            "web_enabled": True,
        },
        "graded": [],
        "rewrites": 0,
        "generations": 0,
        "calls": [],
        "round": 0,
        "round_source": "index",
        "web_used": False,
    }
    return base | over


def doc(i: int) -> Document:
    return make_doc("t", id=f"d{i}", title="x")


def grade(relevant: bool, score: float | None = None) -> dict[str, Any]:
    if score is None:
        score = 0.9 if relevant else 0.1
    return {"document": doc(0), "score": score, "relevant": relevant, "reason": "", "round": 0}


def scored(score: float) -> dict[str, Any]:
    return grade(score >= 0.3, score)


class TestAppendOrReset:
    def test_appends(self) -> None:
        assert append_or_reset([1], [2, 3]) == [1, 2, 3]

    def test_reset_clears_then_appends_rest(self) -> None:
        assert append_or_reset([1, 2], [RESET, 3]) == [3]
        assert append_or_reset([1, 2], [RESET]) == []

    def test_none_and_empty(self) -> None:
        assert append_or_reset(None, [1]) == [1]
        assert append_or_reset([1], []) == [1]


class TestAfterRoute:
    @pytest.mark.parametrize(
        ("route", "node"),
        [
            ("vectorstore", "retrieve"),
            ("web_search", "redact_query"),
            ("direct", "generate"),
            ("history", "recall_answer"),
            ("none", "abstain"),
        ],
    )
    def test_routes(self, route: str, node: str) -> None:
        assert edges.after_route(state(route=route)) == node

    def test_unknown_route_raises(self) -> None:
        with pytest.raises(ValueError, match="unknown route 'sql'"):
            edges.after_route(state(route="sql"))


class TestFanOutGrading:
    def test_one_send_per_chunk(self) -> None:
        sends = edges.fan_out_grading(state(documents=[doc(1), doc(2)], round=3))
        assert isinstance(sends, list) and all(isinstance(s, Send) for s in sends)
        assert [s.arg["document"]["id"] for s in sends] == ["d1", "d2"]
        assert {s.node for s in sends} == {"grade_chunk"} and sends[0].arg["round"] == 3

    def test_empty_round_goes_to_assessment(self) -> None:
        assert edges.fan_out_grading(state(documents=[])) == "assess_grades"

    def test_budget_too_small_for_all_graders_abstains(self) -> None:
        s = state(documents=[doc(1), doc(2)], calls=[{}] * 19)
        assert edges.fan_out_grading(s) == "abstain"


class TestAfterGrading:
    def test_enough_relevant_generates(self) -> None:
        assert edges.after_grading(state(graded=[grade(True), grade(False)])) == "generate"

    def test_too_few_rewrites_while_allowed(self) -> None:
        assert edges.after_grading(state(graded=[grade(False)], rewrites=1)) == "rewrite_query"

    def test_rewrites_exhausted_falls_back_to_web(self) -> None:
        assert edges.after_grading(state(rewrites=2)) == "redact_query"

    def test_rewrites_exhausted_web_off_abstains(self) -> None:
        s = state(rewrites=2, budget=state()["budget"] | {"web_enabled": False})
        assert edges.after_grading(s) == "abstain"

    def test_web_round_without_relevant_abstains(self) -> None:
        assert edges.after_grading(state(round_source="web", web_used=True)) == "abstain"

    def test_index_failure_abstains_neither_rewriting_nor_going_to_the_web(self) -> None:
        s = state(retrieval_error="down")
        assert edges.after_grading(s) == "abstain"
        assert standing.abstain_reason(s) == "retrieval_unavailable"

    def test_no_usable_grader_reply_abstains_model_unusable(self) -> None:
        bad = grade(False) | {"usable": False}
        s = state(graded=[bad, bad])
        assert edges.after_grading(s) == "abstain"
        assert standing.abstain_reason(s) == "model_unusable"
        # One usable verdict is enough to go on (here: rewrite).
        assert edges.after_grading(state(graded=[bad, grade(False)])) == "rewrite_query"

    def test_model_error_abstains(self) -> None:
        assert edges.after_grading(state(graded=[grade(True)], model_error="x")) == "abstain"


class TestConfidenceTiers:
    @pytest.mark.parametrize(
        ("scores", "tier"),
        [
            ([0.7], "correct"),  # the upper threshold itself is correct
            ([0.69, 0.2], "ambiguous"),
            ([0.3], "ambiguous"),  # the lower threshold itself is kept
            ([0.29, 0.1], "incorrect"),
            ([], "incorrect"),  # nothing retrieved
        ],
    )
    def test_tier_edges(self, scores: list[float], tier: str) -> None:
        assert standing.confidence_tier(state(graded=[scored(x) for x in scores])) == tier

    def test_ambiguous_adds_the_web_and_keeps_the_chunks(self) -> None:
        s = state(graded=[scored(0.5)])
        assert edges.after_grading(s) == "redact_query"
        assert standing.kept_for_web_round(s)

    def test_ambiguous_without_web_generates_from_what_it_kept(self) -> None:
        s = state(graded=[scored(0.5)], budget=state()["budget"] | {"web_enabled": False})
        assert edges.after_grading(s) == "generate"

    def test_incorrect_rewrites_then_goes_to_the_web_without_index_chunks(self) -> None:
        assert edges.after_grading(state(graded=[scored(0.1)])) == "rewrite_query"
        s = state(graded=[scored(0.1)], rewrites=2)
        assert edges.after_grading(s) == "redact_query"
        assert not standing.kept_for_web_round(s)

    def test_web_round_generates_from_kept_and_web(self) -> None:
        kept = state(round_source="web", web_used=True, kept=[doc(1)], graded=[scored(0.1)])
        assert edges.after_grading(kept) == "generate"
        assert edges.after_grading(kept | {"kept": []}) == "abstain"

    def test_spent_generations_abstain_instead_of_generating(self) -> None:
        assert edges.after_grading(state(graded=[grade(True)], generations=2)) == "abstain"


class TestAfterBegin:
    def test_a_thread_out_of_calls_abstains(self) -> None:
        s = state(thread_calls=1000)
        assert edges.after_begin(s) == "abstain"
        assert standing.abstain_reason(s) == "budget_exhausted"

    def test_history_means_condensing_first(self) -> None:
        earlier = [{"question": "What is X?", "status": "answered"}]
        assert edges.after_begin(state()) == "route_question"
        assert edges.after_begin(state(history=earlier)) == "condense_question"

    def test_a_question_repeated_word_for_word_is_not_condensed(self) -> None:
        earlier = [{"question": "What is X?", "status": "answered"}]
        repeat = state(question="what is x", history=earlier)
        assert edges.after_begin(repeat) == "route_question"  # answered from the history
        unanswered = [{"question": "What is X?", "status": "abstained"}]
        assert edges.after_begin(state(question="What is X?", history=unanswered)) == (
            "condense_question"
        )


class TestAfterRewrite:
    def test_new_query_retrieves(self) -> None:
        assert edges.after_rewrite(state(duplicate_query=False)) == "retrieve"

    def test_duplicate_query_skips_to_fallback(self) -> None:
        assert edges.after_rewrite(state(duplicate_query=True)) == "redact_query"
        assert edges.after_rewrite(state(duplicate_query=True, web_used=True)) == "abstain"


class TestAfterVerify:
    def test_grounded_and_resolving_finalizes(self) -> None:
        assert edges.after_verify(state(grounded=True, resolves=True)) == "finalize"

    def test_ungrounded_regenerates_then_abstains(self) -> None:
        assert edges.after_verify(state(grounded=False, generations=1)) == "generate"
        assert edges.after_verify(state(grounded=False, generations=2)) == "abstain"

    def test_an_answer_another_page_contradicts_abstains_unless_trust_settled_it(self) -> None:
        record = {"subject": "x", "aspect": "default", "values": {}, "winner": None, "detail": ""}
        unsettled = record | {"settled": "abstained"}
        assert edges.after_verify(state(grounded=False, generations=1, conflict=unsettled)) == (
            "abstain"
        )
        trusted = record | {"settled": "trust"}
        assert edges.after_verify(state(grounded=False, generations=1, conflict=trusted)) == (
            "generate"
        )

    def test_off_target_rewrites_then_abstains(self) -> None:
        assert edges.after_verify(state(grounded=True, resolves=False)) == "rewrite_query"
        assert edges.after_verify(state(grounded=True, resolves=False, rewrites=2)) == "abstain"

    def test_a_claim_its_sources_lack_is_searched_for_once_per_query(self) -> None:
        lacking = state(grounded=False, generations=1, route="vectorstore", lacking=["It is 7."])
        # Off (the default): written again from the same sources.
        assert edges.after_verify(lacking) == "generate"
        lacking["budget"] = lacking["budget"] | {"multi_hop": True}
        assert standing.lacking_query(lacking) == "q It is 7."
        assert edges.after_verify(lacking) == "rewrite_query"
        # The same search again would find the same chunks: written again instead, and
        # never handed to the web fallback (the query holds the model's claims).
        tried = lacking | {"queries_tried": ["q", "Q  it is 7"]}
        assert standing.lacking_query(tried) is None
        assert edges.after_verify(tried) == "generate"
        # Not without a generation or a rewrite left, nor off the index route.
        assert edges.after_verify(lacking | {"generations": 2}) == "abstain"
        assert edges.after_verify(lacking | {"rewrites": 2}) == "generate"
        assert edges.after_verify(lacking | {"route": "direct"}) == "generate"


class TestAfterGradingWithCarriedSources:
    def test_a_search_for_what_was_lacking_generates_whatever_its_tier(self) -> None:
        carried = state(kept=[doc(1)], graded=[grade(False)])
        # Off (the default), kept chunks only come from an ambiguous round beside the web.
        assert edges.after_grading(carried) == "rewrite_query"
        carried["budget"] = carried["budget"] | {"multi_hop": True}
        assert edges.after_grading(carried) == "generate"
        assert edges.after_grading(carried | {"generations": 2}) == "rewrite_query"
        # Failures are still handled first.
        assert edges.after_grading(carried | {"retrieval_error": "down"}) == "abstain"
        assert edges.after_grading(carried | {"model_error": "down"}) == "abstain"


class TestAbstainReason:
    @pytest.mark.parametrize(
        ("over", "reason"),
        [
            ({"model_error": "x"}, "model_unavailable"),
            ({"calls": [{}] * 20}, "budget_exhausted"),
            ({"generation": {"answer": "a"}, "grounded": False}, "ungrounded"),
            ({"generation": {"answer": "a"}, "grounded": True, "resolves": False}, "off_target"),
            ({}, "no_relevant_sources"),
        ],
    )
    def test_reason(self, over: dict[str, Any], reason: str) -> None:
        assert standing.abstain_reason(state(**over)) == reason
