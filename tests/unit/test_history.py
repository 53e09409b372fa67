"""The thread's history is trimmed to fit the smallest context window, keeping sources."""

from __future__ import annotations

from typing import Any

from pipeline.history import history_budget, render_history


def turn(i: int, words: int = 60) -> Any:
    return {
        "question": f"Question {i}?",
        "status": "answered",
        "answer": f"Fact {i} is true [1]. " + "detail " * words,
        "citations": [
            {
                "n": 1,
                "id": f"c{i}",
                "locator": f"/doc{i}.html",
                "title": f"Doc {i}",
                "source_type": "index",
            }
        ],
    }


def test_everything_fits_when_short() -> None:
    text = render_history([turn(1, 5), turn(2, 5)], 4000)
    assert "User: Question 1?" in text and "User: Question 2?" in text
    assert "[1] Doc 2" in text


def test_long_history_is_summarised_within_budget_keeping_facts_and_sources() -> None:
    turns = [turn(i) for i in range(1, 31)]
    budget = history_budget(2048)  # a small model's window
    text = render_history(turns, budget)
    assert len(text) <= budget
    assert "User: Question 30?" in text  # newest whole
    assert "- asked 'Question 25?': Fact 25 is true [1]. (sources: [1] Doc 25)" in text
    assert "earlier turns omitted" in text


def test_abstentions_are_marked() -> None:
    text = render_history(
        [{"question": "Q?", "status": "abstained", "answer": "", "citations": []}], 1000
    )
    assert "no answer: abstained" in text
