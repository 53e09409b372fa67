"""The cross-check search's query (issue 12): what the kept sources state, searched alone."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.corroboration import cross_check_query
from pipeline.documents import Document
from tests.documents import make_doc


def doc(text: str) -> Document:
    return make_doc(text, id="d", locator="/d.md", title="d")


@pytest.mark.parametrize(
    ("question", "text", "query"),
    [
        (
            "What is the default bgwriter_delay?",
            "On our clusters the default bgwriter_delay is 50ms.",
            "bgwriter_delay default",
        ),
        (
            "What is the maximum value of max_connections?",
            "max_connections can be at most 262143.",
            "max_connections maximum",
        ),
        (
            "When was PostgreSQL 17 released?",
            "PostgreSQL 17 was released on 2024-09-26.",
            "postgresql 17 release date",
        ),
        (
            "Which TCP port does a PostgreSQL server listen on by default?",
            "The server listens on port 5433 by default.",
            "tcp port postgresql server listen default",
        ),
    ],
)
def test_the_query_is_the_subject_and_its_aspect(question: str, text: str, query: str) -> None:
    assert cross_check_query(question, [doc(text)]) == query


def test_the_query_takes_the_aspect_the_question_asks_for() -> None:
    text = "max_connections can be at most 262143. The default max_connections is 100."
    query = cross_check_query("What is the default value of max_connections?", [doc(text)])
    assert query == "max_connections default"


def test_no_value_stated_or_no_setting_named_means_no_search() -> None:
    assert cross_check_query("What is the default bgwriter_delay?", [doc("It sleeps.")]) is None
    assert cross_check_query("How do I stop the server?", [doc("The default is 5.")]) is None


def test_only_a_kept_source_against_a_found_one_on_the_asked_aspect_counts() -> None:
    from pipeline.corroboration import _kept_against_found

    def d(i: str, text: str) -> Any:
        return doc(text) | {"id": i, "locator": f"/{i}.md"}

    question = "What is the default bgwriter_delay?"
    kept = [d("k", "bgwriter_delay (integer)\n\nThe default is 200ms.")]
    rivals = [
        d("a", "bgwriter_delay (integer)\n\nIt is limited to 10s."),
        d("b", "bgwriter_delay (integer)\n\nIt may be at most 5s."),
    ]
    assert _kept_against_found(question, kept, rivals) is None  # found vs found, another aspect
    plant = d("p", "bgwriter_delay (integer)\n\nThe default is 50ms.")
    conflict = _kept_against_found(question, kept, [*rivals, plant])
    assert conflict is not None and conflict.aspect == "default"
    assert {i for side in conflict.sides for i in side.source_ids} == {"k", "p"}
