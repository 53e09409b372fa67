"""Progress events read off node updates: what each node tells, and no text before the end."""

from __future__ import annotations

from typing import Any

from workers.core.events import Usage, events_of_update, grades_summary, outcome_event
from workers.core.timeline import event_line

ANSWER = "Tighten the rotor shaft fastener to 45 N·m."


def _doc(n: int) -> dict[str, Any]:
    return {"id": f"c{n}", "locator": f"m{n}.md", "title": "M", "text": "…", "source_type": "index"}


def test_each_node_tells_its_part_with_usage_summed_over_the_turn() -> None:
    usage = Usage()
    call = {"kind": "grader", "model": "m", "ok": True, "input_tokens": 100, "output_tokens": 7}
    route = events_of_update(
        "route_question", {"route": "vectorstore", "route_reason": "index", "calls": []}, usage
    )
    graded = {"document": _doc(1), "score": 0.8, "relevant": True, "reason": "states it"}
    grade = events_of_update(
        "grade_chunk", {"graded": [graded | {"round": 0}], "calls": [call]}, usage
    )
    again = events_of_update("grade_chunk", {"graded": [], "calls": [call]}, usage)
    assert route == [("route", {"route": "vectorstore", "reason": "index"})]
    assert grade[0] == (
        "grade",
        {
            "round": 0,
            "id": "c1",
            "locator": "m1.md",
            "score": 0.8,
            "relevant": True,
            "reason": "states it",
        },
    )
    assert grade[1] == (
        "usage",
        {"calls": 1, "input_tokens": 100, "output_tokens": 7, "cached_tokens": 0},
    )
    assert again == [
        ("usage", {"calls": 2, "input_tokens": 200, "output_tokens": 14, "cached_tokens": 0})
    ]


def test_generated_text_is_never_in_an_event_before_the_outcome() -> None:
    usage = Usage()
    generation = {"answer": ANSWER, "claims": [{"text": ANSWER, "source_ids": ["c1"]}]}
    told = [
        *events_of_update(
            "generate", {"generations": 1, "generation": generation | {"sources": ["c1"]}}, usage
        ),
        *events_of_update(
            "verify",
            {"grounded": False, "resolves": True, "feedback": f"unsupported: {ANSWER}"},
            usage,
        ),
        *events_of_update(
            "finalize",
            {"outcome": {"status": "answered", "answer": ANSWER, "reason": None}},
            usage,
        ),
    ]
    assert [k for k, _ in told] == ["generate", "verdict", "decision"]
    assert told[0][1] == {"attempt": 1, "claims": 1, "sources": 1}
    assert all(ANSWER not in repr(data) for _, data in told)
    final = outcome_event({"status": "answered", "answer": ANSWER, "citations": [], "reason": None})
    assert final[1]["answer"] == ANSWER


def test_the_grades_summary_counts_the_round_just_closed() -> None:
    graded = [
        {"round": 0, "relevant": True},
        {"round": 1, "relevant": True},
        {"round": 1, "relevant": False},
    ]
    assert grades_summary({"round": 1, "graded": graded}) == (
        "grades",
        {"round": 1, "relevant": 1, "total": 2},
    )


def test_the_human_lines_show_grade_chips_verdicts_and_the_answer_last() -> None:
    def line(kind: str, data: dict[str, Any], at: float = 12.5) -> str:
        return event_line({"kind": kind, "node": "n", "at": at, "data": data}, 10.0)

    grade = line(
        "grade", {"round": 0, "locator": "m1.md", "score": 0.8, "relevant": False, "reason": "off"}
    )
    assert grade == "   2.5 s    ✗ 0.80 m1.md: off"
    verdict = line("verdict", {"grounded": True, "resolves": True, "claims": [True, False]})
    assert verdict.endswith("claims: ✓ ✗")
    done = line(
        "outcome",
        {
            "status": "answered",
            "reason": None,
            "answer": ANSWER,
            "citations": [{"n": 1, "title": "M", "locator": "m1.md"}],
        },
    )
    assert done.splitlines() == [
        "   2.5 s  outcome: answered",
        f"           {ANSWER}",
        "           [1] M — m1.md",
    ]
