"""Deterministic citation checks and answer composition (no model involved)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.grounding import (
    citation_problems,
    cited_numbers,
    normalise_query,
    published_answer,
    support_problems,
)
from pipeline.lexical import keeps_the_message


def gen(answer: str, *claims: tuple[str, list[str]], sources: tuple[str, ...] = ("a", "b")) -> Any:
    return {
        "answer": answer,
        "sources": list(sources),
        "claims": [{"text": t, "source_ids": ids} for t, ids in claims],
    }


class TestCitationProblems:
    def test_clean_generation_has_none(self) -> None:
        assert citation_problems(gen("X [1].", ("X", ["a"])), {"a", "b"}) == []

    def test_fabricated_or_stale_id(self) -> None:
        problems = citation_problems(gen("X [1].", ("X", ["zzz"])), {"a", "b"})
        assert problems == ["claim 1 cites a source that is not among the graded ones"]

    def test_uncited_claim_and_dangling_marker(self) -> None:
        problems = citation_problems(gen("X [3].", ("X", [])), {"a", "b"})
        assert problems == ["claim 1 cites no source", "marker [3] points to no source"]

    def test_empty_answer_and_no_claims(self) -> None:
        assert citation_problems(gen(" "), {"a"}) == ["the answer is empty"]
        assert citation_problems(gen("X"), {"a"}) == ["the answer lists no claims"]

    def test_looping_answer_is_refused(self) -> None:
        looping = "The VACUUM command is a routine routine routine task [1]."
        assert citation_problems(gen(looping, ("X", ["a"])), {"a"}) == ["the answer repeats itself"]
        parrot = "It is used to remove data. " * 4 + "[1]"
        assert citation_problems(gen(parrot, ("X", ["a"])), {"a"}) == ["the answer repeats itself"]

    def test_direct_reply_must_not_claim(self) -> None:
        assert citation_problems(gen("Hi!"), set(), direct=True) == []
        assert citation_problems(gen("Hi!", ("fact", ["a"])), set(), direct=True) == [
            "a direct reply must not make factual claims"
        ]


class TestPublishedAnswer:
    def test_keeps_text_with_markers(self) -> None:
        assert published_answer(gen("X is y [2].", ("X is y", ["b"]))) == "X is y [2]."

    def test_composes_from_claims_when_markers_are_missing(self) -> None:
        g = gen("X is y. Z too.", ("X is y.", ["b"]), ("Z too", ["a", "b"]))
        assert published_answer(g) == "X is y [2]. Z too [1][2]."
        assert cited_numbers(g, published_answer(g)) == [1, 2]


def test_normalise_query_ignores_case_punctuation_and_order() -> None:
    assert normalise_query("What is MVCC?") == normalise_query("mvcc, what IS")
    assert normalise_query("What is MVCC?") != normalise_query("What is WAL?")


@pytest.mark.parametrize(
    ("message", "standalone", "kept"),
    [
        ("What about its price?", "What is the price of the Quillmate Pro?", True),
        ("And the second one?", "What torque does the second fastener need?", True),
        ("Why?", "Why does the fastener need 12 newton metres?", True),
        # A small model answering with an earlier question, or its own history markup:
        (
            "When does the Quuxcorp office open?",
            "What temperature range does the Zorblax widget operate in? (response:",
            False,
        ),
        ("Is the office open on Sundays?", "(no answer: abstained),", False),
    ],
)
def test_a_condensed_question_must_keep_the_messages_words(
    message: str, standalone: str, kept: bool
) -> None:
    assert keeps_the_message(message, standalone) is kept


class TestSupportProblems:
    SOURCE = {"a": {"text": "These commands should not significantly interfere with other work."}}

    def test_a_claim_in_its_sources_words_passes(self) -> None:
        g = gen("", ("These commands should not significantly interfere with work.", ["a"]))
        assert support_problems(g, self.SOURCE, 0.6) == []

    def test_a_claim_that_switches_script_is_refused(self) -> None:
        g = gen("", ("These commands should not significantly 干扰 other work.", ["a"]))
        [problem] = support_problems(g, self.SOURCE, 0.6)
        assert problem == "claim 1 has words its sources do not: 干扰"

    def test_a_word_the_source_itself_writes_in_that_script_passes(self) -> None:
        source = {"a": {"text": "The setting lc_messages accepts ja_JP, shown as 日本語."}}
        g = gen("", ("The setting lc_messages accepts ja_JP, shown as 日本語.", ["a"]))
        assert support_problems(g, source, 0.6) == []

    def test_accented_latin_is_checked_like_ascii(self) -> None:
        g = gen("", ("These commands should not significantly interfere, café.", ["a"]))
        assert support_problems(g, self.SOURCE, 0.6) == []


class TestLatinClaims:
    def test_the_latin_schema_refuses_another_script_and_keeps_the_length_bound(self) -> None:
        from pydantic import ValidationError

        from pipeline.schemas import LatinGeneratedAnswer

        ok = {"claims": [{"text": "It is 2 kB → fine, café ≤ 3 … “quoted”", "sources": [1]}]}
        LatinGeneratedAnswer.model_validate(ok)
        for text in ("not significantly 干扰", "x" * 201):
            with pytest.raises(ValidationError):
                LatinGeneratedAnswer.model_validate({"claims": [{"text": text, "sources": [1]}]})

    def test_latin_text_is_judged_by_its_letters(self) -> None:
        from pipeline.lexical import is_latin_text

        assert is_latin_text("Größe 128MB, naïve café (§ 3) → ≤ 5%")
        assert not is_latin_text("The setting shown as 日本語")
        assert not is_latin_text("Ошибка 23505")
