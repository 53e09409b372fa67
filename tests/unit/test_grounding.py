"""Deterministic citation checks and answer composition (no model involved)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.grounding import (
    citation_problems,
    cited_numbers,
    normalise_query,
    published_answer,
    resolution_problem,
    support_problems,
)
from pipeline.lexical import asks_for_quantity, identifiers, keeps_the_message, states_quantity


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

    def test_a_claim_naming_a_setting_its_source_never_mentions_is_refused(self) -> None:
        source = {
            "a": {"text": "A SELECT command which will provide the columns and rows of the view."}
        }
        g = gen("", ("The pg_stat_io view provides the columns and rows of the view.", ["a"]))
        assert support_problems(g, source, 0.6) == [
            "claim 1 names pg_stat_io, absent from its sources"
        ]

    def test_the_sources_title_counts_for_names_and_words_but_not_for_numbers(self) -> None:
        source = {
            "a": {
                "title": "19.4. pg_basebackup",
                "text": "The stream method will require two replication connections not just one.",
            }
        }
        named = gen("", ("pg_basebackup will require two replication connections.", ["a"]))
        assert support_problems(named, source, 0.6) == []
        untitled = {"a": {**source["a"], "title": ""}}
        assert support_problems(named, untitled, 0.6) == [
            "claim 1 names pg_basebackup, absent from its sources"
        ]
        section = gen("", ("pg_basebackup needs 19.4 replication connections.", ["a"]))
        assert support_problems(section, source, 0.3) == [
            "claim 1 states 19.4, absent from its sources"
        ]

    def test_names_the_source_writes_in_another_case_or_form_pass(self) -> None:
        source = {"a": {"text": "http.postBuffer (integer): ... Use pg_promote() or --jobs=N."}}
        g = gen("", ("Set HTTP.POSTBUFFER, call pg_promote or pass --jobs.", ["a"]))
        assert support_problems(g, source, 0.3) == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Set max_wal_size to 1GB.", {"max_wal_size"}),
        ("pg_stat_statements.max is 5000.", {"pg_stat_statements.max"}),
        ("use gc.auto and http.postBuffer", {"gc.auto", "http.postbuffer"}),
        ("run pg_dump --jobs=4 or -j 4", {"pg_dump", "--jobs"}),
        ("psql's \\timing toggles it", {"\\timing"}),
        ("the file postgresql.conf.", {"postgresql.conf"}),
        # Not names: abbreviations, versions, section numbers, hyphenated words.
        ("e.g. this, i.e. that; version 15.4 and 2.39.5; Section 20.4.1.", set()),
        ("B-tree indexes, built-in and non-default values", set()),
        ("mail jane.doe@example.com or see https://www.postgresql.org/about/news/", set()),
    ],
)
def test_identifiers_are_the_names_a_reader_would_copy(text: str, names: set[str]) -> None:
    assert identifiers(text) == names


class TestResolution:
    @pytest.mark.parametrize(
        ("question", "quantity"),
        [
            ("How many replication connections does pg_basebackup need?", True),
            ("How long may the payload string of a NOTIFY be?", True),
            ("What port does the server listen on?", True),
            ("Which setting terminates idle sessions?", False),
            ("What does VACUUM do?", False),
            # A cue describing the named thing a clause asks for is no quantity question ...
            ("Which psql meta-command turns on displaying how long each statement takes?", False),
            ("What option limits how many rows COPY reads?", False),
            # ... but one that opens its own clause, or follows "what is", asks for one.
            ("Which format is needed, and how many jobs run by default?", True),
            ("By default, how many connections are reserved?", True),
            ("What is the limit on how many columns a table can have?", True),
            ("Which setting is it; how much memory may it use?", True),
        ],
    )
    def test_quantity_questions_are_recognised(self, question: str, quantity: bool) -> None:
        assert asks_for_quantity(question) is quantity

    SOURCES = {
        "a": {"text": "pg_basebackup needs two connections."},
        "b": {"text": "pg_locks provides a global view of all locks."},
    }

    def test_a_quantity_question_needs_a_claim_that_states_one(self) -> None:
        question = "How many replication connections does pg_basebackup need?"
        vague = gen("", ("pg_basebackup needs a replication connection.", ["a"]))
        assert resolution_problem(question, vague, self.SOURCES) == (
            "the question asks for a quantity and no claim states one"
        )
        for figure in ("It needs 2 connections.", "It needs two connections."):
            assert resolution_problem(question, gen("", (figure, ["a"])), self.SOURCES) is None
        assert resolution_problem("What does VACUUM do?", vague, self.SOURCES) is None

    def test_the_cited_sources_must_mention_what_the_question_names(self) -> None:
        question = "Which columns does the pg_stat_io view provide?"
        other_view = gen("", ("The view provides a global view of all locks.", ["b"]))
        assert resolution_problem(question, other_view, self.SOURCES) == (
            "no cited source mentions pg_stat_io, which the question asks about"
        )
        about = "Which locks does the PG_LOCKS view show?"
        assert resolution_problem(about, other_view, self.SOURCES) is None

    def test_number_words_and_digits_state_quantities(self) -> None:
        assert states_quantity("three connections") and states_quantity("8000 bytes")
        assert not states_quantity("chosen automatically by initdb")


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
