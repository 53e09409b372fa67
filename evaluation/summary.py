"""Aggregating judged results: per arm and kind, overall, retrieval hit@k, and the targets.

Rates whose denominator is zero are ``None`` (shown as "-"), never 0: "no answerable item
was run" must not read as "0% correct". Percentiles interpolate linearly between the two
nearest ranks (NumPy's default), so p50 of ``[1, 2]`` is 1.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel

from evaluation.scoring import ItemResult, RetrievalResult, is_answerable

OVERALL = "overall"
"""The key of the row over every kind."""


class GroupSummary(BaseModel):
    """The numbers of one arm over one group of items (a kind, or all of them).

    Attributes:
        n: Items.
        answered: Items answered.
        answered_correct: Answered and correct (answerable kinds).
        hallucinated: Answered and not correct (any kind).
        abstained: Not answered (``failed`` included).
        failed: Runs with no usable outcome (timeout, internal error, apology).
        answerable_n: Items of answerable kinds.
        answered_correct_rate: ``answered_correct / answerable_n``.
        unanswerable_n: Items of unanswerable kinds.
        unanswerable_abstained: Of those, how many the arm abstained on.
        unanswerable_abstained_rate: ``unanswerable_abstained / unanswerable_n``.
        hallucination_rate: ``hallucinated / answered``.
        crag_score: Mean CRAG score (+1 / 0 / -1) per item.
        router_n: Items with a route (graph arm).
        router_accuracy: Share of those whose route equals the expected route.
        grader_graded_relevant: Verdicts the grader kept, pooled over items.
        grader_labelled_relevant: Chunks labelled relevant among those graded.
        grader_true_positive: Kept and labelled relevant.
        grader_precision: ``true_positive / graded_relevant``.
        grader_recall: ``true_positive / labelled_relevant``.
        model_calls_mean: Mean model calls per item.
        prompt_tokens_mean: Mean prompt tokens per item.
        prompt_tokens_p50: Median prompt tokens per item.
        latency_p50_s: Median latency, seconds.
        latency_p95_s: 95th percentile latency, seconds.
    """

    n: int
    answered: int
    answered_correct: int
    hallucinated: int
    abstained: int
    failed: int
    answerable_n: int
    answered_correct_rate: float | None
    unanswerable_n: int
    unanswerable_abstained: int
    unanswerable_abstained_rate: float | None
    hallucination_rate: float | None
    crag_score: float | None
    router_n: int
    router_accuracy: float | None
    grader_graded_relevant: int
    grader_labelled_relevant: int
    grader_true_positive: int
    grader_precision: float | None
    grader_recall: float | None
    model_calls_mean: float | None
    prompt_tokens_mean: float | None
    prompt_tokens_p50: float | None
    latency_p50_s: float | None
    latency_p95_s: float | None


class RetrievalSummary(BaseModel):
    """Hit@k over a group of answerable items.

    Attributes:
        k: Chunks per search.
        n: Items searched.
        hits: Items whose search returned a chunk of one of their pages.
        hit_at_k: ``hits / n``.
        answer_hits: Items whose search returned a chunk labelled relevant (the answer).
        answer_hit_at_k: ``answer_hits / n``.
        mrr: Mean reciprocal rank of the first such chunk (0 for a miss).
    """

    k: int
    n: int
    hits: int
    hit_at_k: float | None
    answer_hits: int
    answer_hit_at_k: float | None
    mrr: float | None


def ratio(part: float, whole: float) -> float | None:
    """``part / whole``, or ``None`` when ``whole`` is 0."""
    return part / whole if whole else None


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, ``None`` for no values."""
    return sum(values) / len(values) if values else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) by linear interpolation; ``None`` for no values.

    Raises:
        ValueError: ``q`` is outside [0, 100].
    """
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within [0, 100], got {q}")
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise_group(results: Sequence[ItemResult]) -> GroupSummary:
    """The numbers of one arm over ``results`` (see :class:`GroupSummary`)."""
    answered = [r for r in results if r.status == "answered"]
    answerable = [r for r in results if is_answerable(r.kind)]
    unanswerable = [r for r in results if not is_answerable(r.kind)]
    routed = [r for r in results if r.route is not None]
    graded = [g for r in results for g in r.graded]
    kept = sum(g.graded_relevant for g in graded)
    labelled = sum(g.labelled_relevant for g in graded)
    true_positive = sum(g.graded_relevant and g.labelled_relevant for g in graded)
    correct_answers = sum(r.correct for r in answerable if r.status == "answered")
    abstained_unanswerable = sum(r.status == "abstained" for r in unanswerable)
    latencies = [r.latency_s for r in results]
    tokens = [float(r.prompt_tokens) for r in results]
    return GroupSummary(
        n=len(results),
        answered=len(answered),
        answered_correct=correct_answers,
        hallucinated=sum(r.hallucinated for r in results),
        abstained=sum(r.abstained for r in results),
        failed=sum(r.status == "failed" for r in results),
        answerable_n=len(answerable),
        answered_correct_rate=ratio(correct_answers, len(answerable)),
        unanswerable_n=len(unanswerable),
        unanswerable_abstained=abstained_unanswerable,
        unanswerable_abstained_rate=ratio(abstained_unanswerable, len(unanswerable)),
        hallucination_rate=ratio(sum(r.hallucinated for r in results), len(answered)),
        crag_score=mean([float(r.score) for r in results]),
        router_n=len(routed),
        router_accuracy=ratio(sum(r.route == r.expected_route for r in routed), len(routed)),
        grader_graded_relevant=kept,
        grader_labelled_relevant=labelled,
        grader_true_positive=true_positive,
        grader_precision=ratio(true_positive, kept),
        grader_recall=ratio(true_positive, labelled),
        model_calls_mean=mean([float(r.model_calls) for r in results]),
        prompt_tokens_mean=mean(tokens),
        prompt_tokens_p50=percentile(tokens, 50),
        latency_p50_s=percentile(latencies, 50),
        latency_p95_s=percentile(latencies, 95),
    )


def summarise(results: Sequence[ItemResult]) -> dict[str, dict[str, GroupSummary]]:
    """Per arm, a summary per kind (in first-seen order) and :data:`OVERALL`.

    Returns:
        ``{arm: {kind: GroupSummary, …, "overall": GroupSummary}}``, arms in first-seen order.
    """
    out: dict[str, dict[str, GroupSummary]] = {}
    for arm in dict.fromkeys(r.arm for r in results):
        mine = [r for r in results if r.arm == arm]
        kinds = dict.fromkeys(r.kind for r in mine)
        out[arm] = {kind: summarise_group([r for r in mine if r.kind == kind]) for kind in kinds}
        out[arm][OVERALL] = summarise_group(mine)
    return out


def summarise_retrieval(results: Sequence[RetrievalResult]) -> dict[str, RetrievalSummary]:
    """Hit@k and MRR per kind (first-seen order) and :data:`OVERALL`; empty without results.

    Raises:
        ValueError: The results were searched with different ``k``.
    """
    ks = {r.k for r in results}
    if len(ks) > 1:
        raise ValueError(f"retrieval results mix k values {sorted(ks)}")

    def group(rows: Sequence[RetrievalResult]) -> RetrievalSummary:
        hits = sum(r.hit for r in rows)
        answers = sum(r.answer_hit for r in rows)
        return RetrievalSummary(
            k=rows[0].k,
            n=len(rows),
            hits=hits,
            hit_at_k=ratio(hits, len(rows)),
            answer_hits=answers,
            answer_hit_at_k=ratio(answers, len(rows)),
            mrr=mean([1 / r.rank if r.rank else 0.0 for r in rows]),
        )

    if not results:
        return {}
    kinds = dict.fromkeys(r.kind for r in results)
    out = {kind: group([r for r in results if r.kind == kind]) for kind in kinds}
    out[OVERALL] = group(results)
    return out
