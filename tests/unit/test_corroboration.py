"""The cross-check search's query (issue 12): what the kept sources state, searched alone."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.corroboration import cross_check_query


def doc(text: str) -> Any:
    return {"id": "d", "text": text, "source_type": "index", "locator": "/d.md", "title": "d"}


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


def test_no_value_stated_or_no_setting_named_means_no_search() -> None:
    assert cross_check_query("What is the default bgwriter_delay?", [doc("It sleeps.")]) is None
    assert cross_check_query("How do I stop the server?", [doc("The default is 5.")]) is None
