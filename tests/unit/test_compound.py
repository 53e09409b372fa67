"""Which questions are split into parts for retrieval, and how (corpus.compound)."""

from __future__ import annotations

import pytest

from corpus.compound import question_parts


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "Which pg_dump format dumps in parallel, and which pg_restore option sets the jobs?",
            ["Which pg_dump format dumps in parallel?", "which pg_restore option sets the jobs?"],
        ),
        (
            "How long is the deadlock timeout and what code does the error carry?",
            ["How long is the deadlock timeout?", "what code does the error carry?"],
        ),
        (
            "To promote a standby, which pg_ctl mode do I run, and which SQL function does "
            "the same?",
            [
                "To promote a standby, which pg_ctl mode do I run?",
                "To promote a standby, which SQL function does the same?",
            ],
        ),
    ],
)
def test_a_compound_question_is_split_at_its_clause_boundaries(
    question: str, parts: list[str]
) -> None:
    assert question_parts(question) == parts


@pytest.mark.parametrize(
    "question",
    [
        "Which option sets the port and the listen address?",  # one question, two objects
        "What is the default of work_mem?",
        "How do I back up a database, and why?",  # a part too short to search
        "Which is faster, and which is smaller, and which is older, and which is newer?",
        "vacuum full lock",
        "What is MVCC and how does it work?",  # the second part has no subject of its own
        "Which SQLSTATE code is 23505, and what does it mean?",
        "Explain the difference between VACUUM and what ANALYZE does",
        "What does 'wal_level is logical, and which slots exist' mean in this log line?",
        "List tables that are bloated and do a VACUUM on them",  # not a wh-word
    ],
)
def test_other_questions_are_searched_whole(question: str) -> None:
    assert question_parts(question) == [question]
