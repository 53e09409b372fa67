"""The re-judging bench splits a published answer back into its claims and citations."""

from __future__ import annotations

from bench.rejudge import claims_of
from pipeline.grounding import published_answer


def test_a_published_answer_splits_back_into_its_claims() -> None:
    generation = {
        "answer": "",
        "claims": [
            {"text": "The default is 1 GB (see 20.5.1).", "source_ids": ["a", "b"]},
            {"text": "It is a soft limit", "source_ids": ["b"]},
        ],
        "sources": ["a", "b"],
    }
    answer = published_answer(generation)  # type: ignore[arg-type]
    assert claims_of(answer) == [
        ("The default is 1 GB (see 20.5.1).", [1, 2]),
        ("It is a soft limit.", [2]),
    ]
