"""The targets of issue 9, judged on an arm summary (they are meant for the held-out split).

Each target reads the graph arm's ``overall`` row; the two comparisons also read the naive
arm's, run on the same items. A target that cannot be judged (the arm was not run, or the
denominator is empty) has ``met = None`` and says why, rather than passing or failing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pydantic import BaseModel

from evaluation.summary import OVERALL, GroupSummary

MAX_HALLUCINATION_RATE = 0.03
MIN_UNANSWERABLE_ABSTAINED = 0.90
MIN_ANSWERED_CORRECT = 0.60
MIN_HALLUCINATION_REDUCTION = 5.0


class Target(BaseModel):
    """One target and whether this run met it.

    Attributes:
        name: What is asked, e.g. ``"hallucinated <= 3% of answered"``.
        value: The measured value, ``None`` when not measurable: a rate for the first three,
            graph / naive hallucinations for the fourth (met at <= 0.2), graph minus naive
            CRAG score for the fifth.
        shown: The value as printed, with its counts.
        met: True or False, or ``None`` when it cannot be judged.
        note: Why it cannot be judged, when so.
    """

    name: str
    value: float | None
    shown: str
    met: bool | None
    note: str = ""


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.1f}%" if whole else f"{part}/{whole}"


def judge_targets(summary: Mapping[str, Mapping[str, GroupSummary]]) -> list[Target]:
    """Judge every target on ``summary`` (as :func:`evaluation.summary.summarise` returns).

    Returns:
        The five targets in the issue's order; all ``met = None`` without a graph arm.
    """
    graph = summary.get("graph", {}).get(OVERALL)
    naive = summary.get("naive", {}).get(OVERALL)
    if graph is None:
        names = [
            f"hallucinated <= {MAX_HALLUCINATION_RATE:.0%} of answered",
            f"unanswerables abstained >= {MIN_UNANSWERABLE_ABSTAINED:.0%}",
            f"answerables answered correctly >= {MIN_ANSWERED_CORRECT:.0%}",
            f">= {MIN_HALLUCINATION_REDUCTION:g}x fewer hallucinations than naive",
            "higher CRAG score than naive",
        ]
        return [
            Target(name=n, value=None, shown="-", met=None, note="graph arm not run") for n in names
        ]
    return [
        _rate_target(
            f"hallucinated <= {MAX_HALLUCINATION_RATE:.0%} of answered",
            graph.hallucinated,
            graph.answered,
            lambda r: r <= MAX_HALLUCINATION_RATE,
            "nothing answered",
        ),
        _rate_target(
            f"unanswerables abstained >= {MIN_UNANSWERABLE_ABSTAINED:.0%}",
            graph.unanswerable_abstained,
            graph.unanswerable_n,
            lambda r: r >= MIN_UNANSWERABLE_ABSTAINED,
            "no unanswerable items",
        ),
        _rate_target(
            f"answerables answered correctly >= {MIN_ANSWERED_CORRECT:.0%}",
            graph.answered_correct,
            graph.answerable_n,
            lambda r: r >= MIN_ANSWERED_CORRECT,
            "no answerable items",
        ),
        _reduction_target(graph, naive),
        _crag_target(graph, naive),
    ]


def _rate_target(
    name: str, part: int, whole: int, ok: Callable[[float], bool], empty: str
) -> Target:
    if not whole:
        return Target(name=name, value=None, shown=_pct(part, whole), met=None, note=empty)
    rate = part / whole
    return Target(name=name, value=rate, shown=_pct(part, whole), met=ok(rate))


def _reduction_target(graph: GroupSummary, naive: GroupSummary | None) -> Target:
    name = f">= {MIN_HALLUCINATION_REDUCTION:g}x fewer hallucinations than naive"
    if naive is None:
        return Target(name=name, value=None, shown="-", met=None, note="naive arm not run")
    shown = f"graph {graph.hallucinated} vs naive {naive.hallucinated}"
    if naive.hallucinated == 0:
        note = "the naive arm hallucinated nothing to reduce"
        return Target(name=name, value=None, shown=shown, met=None, note=note)
    value = graph.hallucinated / naive.hallucinated  # finite, unlike naive / graph
    met = value <= 1 / MIN_HALLUCINATION_REDUCTION
    return Target(name=name, value=value, shown=f"{shown} (ratio {value:.2f})", met=met)


def _crag_target(graph: GroupSummary, naive: GroupSummary | None) -> Target:
    name = "higher CRAG score than naive"
    if naive is None or graph.crag_score is None or naive.crag_score is None:
        return Target(name=name, value=None, shown="-", met=None, note="naive arm not run")
    value = graph.crag_score - naive.crag_score
    shown = f"graph {graph.crag_score:+.3f} vs naive {naive.crag_score:+.3f}"
    return Target(name=name, value=value, shown=shown, met=value > 0)
