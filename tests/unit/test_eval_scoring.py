"""The evaluation harness's pure parts: judging, summaries, targets, the naive arm's reading
of replies, outcomes read by the graph arm, item selection and the rendered report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from evaluation.dataset import DatasetError, EvalItem
from evaluation.fleet import attempt_from_outcome
from evaluation.naive import cited_locators, is_abstention, naive_messages, run_naive
from evaluation.report import RunSettings, build_report, render_table
from evaluation.run import Selection, select_items
from evaluation.scoring import (
    Attempt,
    GradedChunk,
    ItemResult,
    has_keywords,
    label_chunk,
    matches_page,
    retrieval_result,
    score_item,
)
from evaluation.summary import OVERALL, percentile, summarise, summarise_retrieval
from evaluation.targets import judge_targets
from pipeline.deps import RetrievalError
from pipeline.documents import Document
from tests.documents import make_doc
from tests.fakes.chat import ScriptedChatModel

ROOT = "/usr/share/doc/postgresql-doc-15/html/"


def item(kind: str = "answerable", n: int = 1, **fields: Any) -> EvalItem:
    base: dict[str, Any] = {
        "id": f"pg-{n:03d}",
        "corpus": "pgdocs",
        "split": "dev",
        "kind": kind,
        "question": "What is the default port?",
        "answer_keywords": [["5432"]],
        "pages": ["runtime-config-connection.html"],
        "reference_answer": "5432.",
        "absent_terms": [],
        "expected_route": "vectorstore",
    }
    if kind == "multi_hop":
        base |= {
            "answer_keywords": [["5432"], ["100", "one hundred"]],
            "pages": ["runtime-config-connection.html", "runtime-config-resource.html"],
        }
    if kind in ("unanswerable", "off_domain"):
        base |= {"answer_keywords": [], "pages": [], "reference_answer": "Not in the manual."}
    if kind == "unanswerable":
        base |= {"question": "What is the Zorblax setting?", "absent_terms": ["Zorblax"]}
    return EvalItem.model_validate(base | fields)


def answered(text: str, *pages: str, **fields: Any) -> Attempt:
    return Attempt(status="answered", answer=text, citations=[ROOT + p for p in pages], **fields)


ABSTAINED = Attempt(status="abstained", reason="no_relevant_sources")
FAILED = Attempt(status="failed", reason="timeout")


class TestJudgingAnswerableKinds:
    def test_keywords_and_a_citation_of_the_page_are_correct(self) -> None:
        r = score_item(
            item(), "graph", answered("It is 5432 [1].", "runtime-config-connection.html")
        )
        assert (r.correct, r.hallucinated, r.abstained, r.score) == (True, False, False, 1)

    def test_keyword_match_is_case_insensitive_and_any_alternative_counts(self) -> None:
        it = item(answer_keywords=[["shared_buffers", "shared buffers"]])
        r = score_item(
            it, "graph", answered("SHARED BUFFERS [1]", "runtime-config-connection.html")
        )
        assert r.correct

    def test_a_missing_keyword_is_a_hallucination(self) -> None:
        r = score_item(
            item(), "naive", answered("It is 5433 [1].", "runtime-config-connection.html")
        )
        assert (r.correct, r.hallucinated, r.score) == (False, True, -1)

    def test_the_right_words_citing_another_page_are_a_hallucination(self) -> None:
        r = score_item(item(), "graph", answered("It is 5432 [1].", "other.html"))
        assert r.hallucinated and r.score == -1

    def test_an_uncited_answer_is_a_hallucination(self) -> None:
        r = score_item(item(), "naive", answered("It is 5432."))
        assert r.hallucinated

    def test_multi_hop_needs_every_group_and_one_of_its_pages(self) -> None:
        it = item("multi_hop")
        half = answered("5432 [1]", "runtime-config-connection.html")
        both = answered("5432 and 100 [1][2]", "runtime-config-resource.html")
        assert score_item(it, "graph", half).hallucinated
        assert score_item(it, "graph", both).correct

    @pytest.mark.parametrize("attempt", [ABSTAINED, FAILED])
    def test_no_answer_scores_zero_and_is_not_correct(self, attempt: Attempt) -> None:
        r = score_item(item("paraphrase"), "graph", attempt)
        assert (r.correct, r.hallucinated, r.abstained, r.score) == (False, False, True, 0)


class TestJudgingUnanswerableKinds:
    @pytest.mark.parametrize("kind", ["unanswerable", "off_domain"])
    def test_abstaining_is_correct_and_scores_zero(self, kind: str) -> None:
        r = score_item(item(kind), "graph", ABSTAINED)
        assert (r.correct, r.hallucinated, r.abstained, r.score) == (True, False, True, 0)

    @pytest.mark.parametrize("kind", ["unanswerable", "off_domain"])
    def test_any_answer_is_a_hallucination(self, kind: str) -> None:
        r = score_item(item(kind), "naive", answered("It is red [1].", "x.html"))
        assert (r.correct, r.hallucinated, r.score) == (False, True, -1)

    def test_a_failed_run_is_not_an_abstention_that_counts(self) -> None:
        r = score_item(item("unanswerable"), "graph", FAILED)
        assert (r.correct, r.hallucinated, r.abstained, r.score) == (False, False, True, 0)


class TestPagesAndLabels:
    def test_a_locator_matches_a_page_on_whole_path_components(self) -> None:
        assert matches_page("/doc/git-doc/howto/maintain-git.html", ["howto/maintain-git.html"])
        assert matches_page("/doc/a/b.html", ["b.html"])
        assert not matches_page("/doc/a/xb.html", ["b.html"])
        assert not matches_page("/doc/a/b.html.orig", ["b.html"])

    def test_a_chunk_is_relevant_when_from_a_page_and_holding_a_keyword(self) -> None:
        it = item("multi_hop")
        page = ROOT + "runtime-config-resource.html"
        assert label_chunk(it, page, "max_connections defaults to 100")
        assert not label_chunk(it, page, "shared memory settings")  # the page, no keyword
        assert not label_chunk(it, ROOT + "other.html", "port 5432")  # a keyword, not the page

    def test_no_chunk_is_relevant_to_an_unanswerable_question(self) -> None:
        assert not label_chunk(item("off_domain"), ROOT + "a.html", "5432")

    def test_hit_at_k_reports_the_rank_of_the_first_page_chunk(self) -> None:
        page = ROOT + "runtime-config-connection.html"
        r = retrieval_result(item(), 4, [(ROOT + "a.html", "5432"), (page, "the port")])
        assert (r.hit, r.rank, r.answer_hit) == (True, 2, False)  # the page, not the answer
        r = retrieval_result(item(), 4, [(page, "the port"), (page, "port 5432")])
        assert (r.hit, r.rank, r.answer_hit) == (True, 1, True)
        assert not retrieval_result(item(), 4, [(ROOT + "a.html", "5432")]).hit
        with pytest.raises(ValueError, match="answerable kinds"):
            retrieval_result(item("unanswerable"), 4, [(page, "5432")])


def result(
    kind: str,
    arm: str,
    attempt: Attempt,
    n: int,
    route: str | None = "vectorstore",
    graded: list[tuple[bool, bool]] = (),  # type: ignore[assignment]
    latency: float = 1.0,
    tokens: int = 100,
) -> ItemResult:
    chunks = [
        GradedChunk(
            id=f"c{i}", locator="/x", round=0, score=0.5, graded_relevant=g, labelled_relevant=lab
        )
        for i, (g, lab) in enumerate(graded)
    ]
    update = {
        "route": route if arm == "graph" else None,
        "graded": chunks,
        "latency_s": latency,
        "prompt_tokens": tokens,
        "model_calls": 5 if arm == "graph" else 1,
    }
    return score_item(item(kind, n), arm, attempt.model_copy(update=update))  # type: ignore[arg-type]


GOOD = answered("5432 [1]", "runtime-config-connection.html")
WRONG = answered("5433 [1]", "runtime-config-connection.html")


class TestSummaries:
    def results(self) -> list[ItemResult]:
        return [
            result(
                "answerable", "graph", GOOD, 1, graded=[(True, True), (False, False)], latency=2
            ),
            result("answerable", "graph", ABSTAINED, 2, graded=[(False, True)], latency=4),
            result("unanswerable", "graph", ABSTAINED, 3, route="none", graded=[(True, False)] * 2),
            result("off_domain", "graph", FAILED, 4, latency=10, tokens=0),
            result("answerable", "naive", GOOD, 1),
            result("answerable", "naive", WRONG, 2),
            result("unanswerable", "naive", WRONG, 3),
            result("off_domain", "naive", ABSTAINED, 4),
        ]

    def test_overall_counts_rates_and_score(self) -> None:
        graph = summarise(self.results())["graph"][OVERALL]
        assert (graph.n, graph.answered, graph.answered_correct, graph.hallucinated) == (4, 1, 1, 0)
        assert (graph.abstained, graph.failed) == (3, 1)
        assert graph.answered_correct_rate == 0.5
        assert (graph.unanswerable_n, graph.unanswerable_abstained) == (2, 1)
        assert graph.unanswerable_abstained_rate == 0.5  # the failed run does not count
        assert graph.hallucination_rate == 0.0
        assert graph.crag_score == 0.25

    def test_naive_rates(self) -> None:
        naive = summarise(self.results())["naive"][OVERALL]
        assert (naive.answered, naive.hallucinated) == (3, 2)
        assert naive.hallucination_rate == pytest.approx(2 / 3)
        assert naive.crag_score == pytest.approx((1 - 1 - 1 + 0) / 4)
        assert naive.router_accuracy is None and naive.router_n == 0

    def test_router_accuracy_and_pooled_grader_precision_recall(self) -> None:
        graph = summarise(self.results())["graph"][OVERALL]
        assert graph.router_accuracy == 0.75  # "none" is not the expected vectorstore
        assert (graph.grader_graded_relevant, graph.grader_labelled_relevant) == (3, 2)
        assert graph.grader_true_positive == 1
        assert graph.grader_precision == pytest.approx(1 / 3) and graph.grader_recall == 0.5

    def test_per_kind_rows_and_empty_denominators(self) -> None:
        by_kind = summarise(self.results())["graph"]
        assert list(by_kind) == ["answerable", "unanswerable", "off_domain", OVERALL]
        off = by_kind["off_domain"]
        assert off.answered_correct_rate is None and off.hallucination_rate is None
        assert off.grader_precision is None and off.grader_recall is None

    def test_costs_and_latency_percentiles(self) -> None:
        graph = summarise(self.results())["graph"][OVERALL]
        assert graph.model_calls_mean == 5
        assert graph.prompt_tokens_mean == 75 and graph.prompt_tokens_p50 == 100
        assert graph.latency_p50_s == 3.0  # of 1, 2, 4, 10
        assert graph.latency_p95_s == pytest.approx(4 + 0.85 * 6)

    def test_percentile_interpolates_linearly(self) -> None:
        assert percentile([1, 2], 50) == 1.5
        assert percentile([7], 95) == 7
        assert percentile(list(range(1, 21)), 95) == pytest.approx(19.05)
        assert percentile([], 50) is None
        with pytest.raises(ValueError):
            percentile([1], 101)

    def test_retrieval_summary(self) -> None:
        page = ROOT + "runtime-config-connection.html"
        rows = [
            retrieval_result(item(n=1), 4, [(page, "port 5432")]),
            retrieval_result(item(n=2), 4, [(ROOT + "a.html", "5432"), (ROOT + "b.html", "")]),
            retrieval_result(item("paraphrase", 3), 4, [("/a", ""), (page, "the port")]),
        ]
        summary = summarise_retrieval(rows)
        assert summary[OVERALL].hits == 2 and summary[OVERALL].hit_at_k == pytest.approx(2 / 3)
        assert summary[OVERALL].answer_hits == 1
        assert summary[OVERALL].mrr == pytest.approx((1 + 0 + 0.5) / 3)
        assert summary["answerable"].hit_at_k == 0.5
        assert summary["paraphrase"].answer_hit_at_k == 0.0
        assert summarise_retrieval([]) == {}


class TestTargets:
    def test_each_target_against_the_naive_arm(self) -> None:
        targets = judge_targets(summarise(TestSummaries().results()))
        met = {t.name: t.met for t in targets}
        assert met == {
            "hallucinated <= 3% of answered": True,
            "unanswerables abstained >= 90%": False,
            "answerables answered correctly >= 60%": False,
            ">= 5x fewer hallucinations than naive": True,
            "higher CRAG score than naive": True,
        }

    def test_rates_at_their_thresholds(self) -> None:
        def rates(wrong: int, right: int, abstained: int, answered: int) -> list[bool | None]:
            rows = [result("answerable", "graph", WRONG, n) for n in range(1, wrong + 1)]
            rows += [result("answerable", "graph", GOOD, 100 + n) for n in range(right)]
            rows += [result("unanswerable", "graph", ABSTAINED, 200 + n) for n in range(abstained)]
            rows += [result("unanswerable", "graph", WRONG, 300 + n) for n in range(answered)]
            return [t.met for t in judge_targets(summarise(rows))[:3]]

        assert rates(1, 33, 9, 0) == [True, True, True]  # 1/34 = 2.9%; 33/34 correct
        assert rates(1, 32, 9, 0) == [False, True, True]  # 1/33 = 3.03%
        assert rates(0, 3, 9, 1) == [False, True, True]  # 1 of 4 answered hallucinated; 9/10
        assert rates(0, 3, 8, 1)[1] is False  # 8/9 = 88.9%
        assert rates(2, 3, 1, 0)[2] is True  # 3/5 = 60%
        assert rates(3, 4, 1, 0)[2] is False  # 4/7 = 57%

    def test_targets_that_cannot_be_judged_say_why(self) -> None:
        only_graph = summarise([result("unanswerable", "graph", ABSTAINED, 1)])
        t = {x.name: x for x in judge_targets(only_graph)}
        assert t["hallucinated <= 3% of answered"].met is None
        assert t["answerables answered correctly >= 60%"].note == "no answerable items"
        assert t["higher CRAG score than naive"].note == "naive arm not run"
        assert all(x.met is None for x in judge_targets(summarise([])))

    def test_five_times_fewer_hallucinations_is_a_ratio_of_counts(self) -> None:
        graph = [result("unanswerable", "graph", WRONG, 1)]
        naive = [result("unanswerable", "naive", WRONG, n) for n in range(1, 5)]
        [*_, reduction, _] = judge_targets(summarise(graph + naive))
        assert reduction.value == 0.25 and reduction.met is False
        naive.append(result("unanswerable", "naive", WRONG, 5))
        [*_, reduction, _] = judge_targets(summarise(graph + naive))
        assert reduction.value == 0.2 and reduction.met is True


def doc(n: int, locator: str, text: str = "text") -> Document:
    return make_doc(text, id=f"d{n}", locator=locator, title=f"Page {n}")


class StubRetriever:
    def __init__(self, docs: list[Document], error: bool = False) -> None:
        self.docs, self.error, self.asked = docs, error, []  # type: ignore[var-annotated]

    def count(self) -> int:
        return len(self.docs)

    def search(self, query: str, k: int) -> list[Document]:
        self.asked.append((query, k))
        if self.error:
            raise RetrievalError("index down")
        return self.docs[:k]


class TestNaiveArm:
    @pytest.mark.parametrize(
        "reply",
        [
            "I don't know",
            "I do not know.",
            "I don\u2019t know the answer.",
            "The answer is not mentioned in the sources.",
            "This is not stated in the provided sources.",
            "I cannot answer this from the sources.",
            "   ",
        ],
    )
    def test_abstentions(self, reply: str) -> None:
        assert is_abstention(reply)

    @pytest.mark.parametrize(
        "reply", ["It is 5432 [1].", "Known limits are listed [2].", "The sources say 5432."]
    )
    def test_answers(self, reply: str) -> None:
        assert not is_abstention(reply)

    def test_citations_map_markers_to_locators(self) -> None:
        sources = [doc(1, "/a.html"), doc(2, "/b.html"), doc(3, "/c.html")]
        reply = "X [2]. Y [1, 3]. Z [2][9] [0]."
        assert cited_locators(reply, sources) == ["/b.html", "/a.html", "/c.html"]
        assert cited_locators("no markers", sources) == []

    def test_the_prompt_numbers_the_sources_and_asks_for_the_exact_abstention(self) -> None:
        messages = naive_messages("Q?", [doc(1, "/a", "alpha"), doc(2, "/b", "beta")])
        user = str(messages[-1].content)
        assert "[1] Page 1\nalpha" in user and "[2] Page 2\nbeta" in user
        assert "Question: Q?" in user and user.endswith("reply exactly: I don't know")

    def test_one_call_on_the_top_k_chunks_with_its_tokens(self) -> None:
        retriever = StubRetriever([doc(n, f"/p{n}.html") for n in range(1, 7)])
        model = ScriptedChatModel(script={"unknown": ["It is 5432 [2]."]})
        attempt = run_naive("What port?", retriever, model, k=4)
        assert retriever.asked == [("What port?", 4)]
        assert (attempt.status, attempt.citations, attempt.model_calls) == (
            "answered",
            ["/p2.html"],
            1,
        )
        [(_, user)] = model.calls
        assert attempt.prompt_tokens == len(user) // 4 > 0 and attempt.output_tokens > 0
        assert "[4] Page 4" in user and "[5]" not in user
        assert attempt.latency_s > 0

    def test_abstention_and_failures(self) -> None:
        outage = openai.APIConnectionError(request=httpx.Request("POST", "http://model/v1"))
        model = ScriptedChatModel(script={"unknown": ["I don't know", outage]})
        attempt = run_naive("Q?", StubRetriever([doc(1, "/a")]), model, k=4)
        assert (attempt.status, attempt.reason) == ("abstained", "abstained")
        failed = run_naive("Q?", StubRetriever([doc(1, "/a")]), model, k=4)
        assert (failed.status, failed.reason, failed.model_calls) == (
            "failed",
            "APIConnectionError",
            1,
        )
        down = run_naive("Q?", StubRetriever([], error=True), model, k=4)
        assert (down.status, down.reason, down.model_calls) == (
            "failed",
            "retrieval_unavailable",
            0,
        )


class TestOutcomes:
    OUTCOME: dict[str, Any] = {
        "status": "answered",
        "answer": "5432 [1].",
        "citations": [
            {"n": 1, "id": "x", "locator": "/a.html", "title": "A", "source_type": "index"}
        ],
        "reason": None,
        "detail": "",
        "route": "vectorstore",
        "model_calls": 7,
        "tokens_by_model": {"m1": {"input": 100, "output": 10}, "m2": {"input": 5, "output": 1}},
        "latency_ms": 2500,
    }

    def test_tokens_summed_over_models_unless_the_totals_are_given(self) -> None:
        a = attempt_from_outcome(self.OUTCOME, wall_s=9.0)
        assert (a.status, a.citations, a.route, a.model_calls) == (
            "answered",
            ["/a.html"],
            "vectorstore",
            7,
        )
        assert (a.prompt_tokens, a.output_tokens, a.latency_s) == (105, 11, 2.5)
        b = attempt_from_outcome(self.OUTCOME | {"prompt_tokens": 90, "output_tokens": 9}, 9.0)
        assert (b.prompt_tokens, b.output_tokens) == (90, 9)

    def test_no_outcome_a_dead_letter_and_an_apology_are_failures(self) -> None:
        assert attempt_from_outcome(None, 900.0).model_dump(
            include={"status", "reason", "latency_s"}
        ) == {
            "status": "failed",
            "reason": "timeout",
            "latency_s": 900.0,
        }
        dead = attempt_from_outcome({"status": "dead_letter", "reason": "bad signature"}, 1.0)
        assert (dead.status, dead.reason, dead.detail) == ("failed", "dead_letter", "bad signature")
        apology = attempt_from_outcome(
            self.OUTCOME | {"status": "failed", "answer": "Sorry", "reason": "deadline_exceeded"}, 1
        )
        assert (apology.status, apology.answer) == ("failed", "")


def write(path: Path, *entries: dict[str, Any] | str) -> Path:
    lines = [e if isinstance(e, str) else json.dumps(e) for e in entries]
    path.write_text("\n".join(lines) + "\n")
    return path


class TestSelection:
    def entries(self) -> list[dict[str, Any]]:
        return [
            item(n=1).model_dump(),
            item("paraphrase", 2).model_dump(),
            item("unanswerable", 3).model_dump() | {"split": "heldout"},
            item("off_domain", 4).model_dump(),
        ]

    def test_filters_on_a_custom_file(self, tmp_path: Path) -> None:
        f = write(tmp_path / "mine.jsonl", *self.entries())
        ids = lambda **kw: [i.id for i in select_items(Selection(files=(f,), **kw))]  # noqa: E731
        assert ids() == ["pg-001", "pg-002", "pg-003", "pg-004"]
        assert ids(split="dev") == ["pg-001", "pg-002", "pg-004"]
        assert ids(kinds=("paraphrase", "off_domain")) == ["pg-002", "pg-004"]
        assert ids(ids=("pg-004", "pg-001")) == ["pg-001", "pg-004"]
        assert ids(limit=2) == ["pg-001", "pg-002"]
        assert ids(corpora=("gitdocs",)) == []

    def test_bad_filters_are_named(self, tmp_path: Path) -> None:
        f = write(tmp_path / "mine.jsonl", *self.entries())
        with pytest.raises(ValueError, match="pg-999"):
            select_items(Selection(files=(f,), ids=("pg-999",)))
        with pytest.raises(ValueError, match="unknown kind trick"):
            select_items(Selection(files=(f,), kinds=("trick",)))
        with pytest.raises(ValueError, match="unknown split"):
            select_items(Selection(files=(f,), split="test"))

    def test_a_malformed_entry_names_its_line_and_field(self, tmp_path: Path) -> None:
        entries = self.entries()
        entries[1]["kind"] = "trivia"
        f = write(tmp_path / "mine.jsonl", *entries)
        with pytest.raises(DatasetError, match=r"mine\.jsonl:2 \(id pg-002\): field 'kind'"):
            select_items(Selection(files=(f,)))


class TestReport:
    def settings(self, split: str = "dev") -> RunSettings:
        return RunSettings(
            date="2026-01-01T00:00:00+00:00",
            git_commit="0123456789abcdef",
            git_dirty=True,
            model="m",
            verifier_model="m",
            llm_base_url="http://x/v1",
            retrieve_k=4,
            max_rewrites=2,
            max_generations=2,
            split=split,
            corpora=["pgdocs"],
            kinds=[],
            files=[],
            arms=["graph", "naive"],
            retrieval_only=False,
            tenants={"pgdocs": "eval-pgdocs"},
            timeout_s=900,
            items=4,
        )

    def test_table_rows_per_arm_and_kind_retrieval_and_targets(self) -> None:
        rows = [retrieval_result(item(n=1), 4, [(ROOT + "runtime-config-connection.html", "")])]
        report = build_report(self.settings(), TestSummaries().results(), rows)
        table = render_table(report)
        lines = table.splitlines()
        assert lines[0].startswith("crag eval 2026-01-01") and "commit 0123456789 +" in lines[0]
        header = next(line for line in lines if line.startswith("| arm |"))
        separator = lines[lines.index(header) + 1]
        assert header.count("|") == separator.count("|")
        graph_overall = next(line for line in lines if line.startswith("| graph | **overall**"))
        assert "| 1/2 (50%) | 0 | 0/1 (0%) | 3 (1) | 1/2 (50%) | +0.25 | 75% | 33% / 50% |" in (
            graph_overall
        )
        assert "| **overall** | 1 | 1/1 (100%) | 0/1 (0%) | 1.00 |" in table
        assert "in-sample" in table
        assert "| answerables answered correctly >= 60% | 1/2 = 50.0% | NOT met |" in table
        assert "| higher CRAG score than naive | graph +0.250 vs naive -0.250 | met |" in table

    def test_the_json_document_round_trips(self) -> None:
        report = build_report(self.settings("heldout"), TestSummaries().results(), [])
        again = type(report).model_validate_json(report.model_dump_json())
        assert again == report
        assert "on held-out split" in render_table(report)


class TestNumbersAreWholeNumbers:
    def test_a_number_does_not_match_inside_a_longer_number(self) -> None:
        assert not has_keywords("The default is 100 connections.", [["10"]])
        assert not has_keywords("See section 31.10.", [["10"]])
        assert not has_keywords("Version 1.5.2 added it.", [["1.5"]])

    def test_a_number_matches_before_a_unit_or_punctuation(self) -> None:
        assert has_keywords("It waits 10ms, then 10 s.", [["10"]])
        assert has_keywords("The port is 5432.", [["5432"]])
        assert has_keywords("normally 2 kB", [["2 kB", "2kB"]])


def test_a_citation_marker_is_not_the_number_asked_for() -> None:
    from evaluation.scoring import without_markers

    assert without_markers("It needs at least one connection [2].") == (
        "It needs at least one connection  ."
    )
    assert not has_keywords(without_markers("One is enough [2][3, 4]."), [["2", "two"]])
    assert has_keywords(without_markers("It needs 2 connections [1]."), [["2", "two"]])


def test_rescore_judges_stored_answers_with_todays_rules() -> None:
    from evaluation.report import rescore

    two = item(n=7, answer_keywords=[["two", "2"]])
    attempt = Attempt(
        status="answered",
        answer="It needs at least one connection [2].",
        citations=[ROOT + "runtime-config-connection.html"],
    )
    # As stored by a run whose scorer read the marker [2] as the number 2:
    stale = score_item(two, "graph", attempt).model_copy(
        update={"correct": True, "hallucinated": False, "score": 1}
    )
    report = build_report(TestReport().settings(), [stale], [])
    again = rescore(report, {two.id: two})
    [judged] = again.results
    assert (judged.correct, judged.hallucinated, judged.score) == (False, True, -1)
    assert again.summary["graph"]["overall"].hallucinated == 1
    with pytest.raises(KeyError, match="pg-007"):
        rescore(report, {})
