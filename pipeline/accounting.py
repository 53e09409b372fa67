"""Summaries of a turn's model calls, for outcomes and traces."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TypedDict

from pipeline.state import CIRCUIT_OPEN
from pipeline.values import ModelCall


class Tokens(TypedDict):
    """Token totals of one model."""

    input: int
    output: int


class KindTokens(TypedDict):
    """Token totals of one kind of call: prompt (``input``), of it reused (``cached``), output."""

    input: int
    cached: int
    output: int


def made(calls: Iterable[ModelCall]) -> list[ModelCall]:
    """The calls actually made: hops that skipped a model with an open circuit cost none."""
    return [c for c in calls if c.get("error") != CIRCUIT_OPEN]


def calls_by_kind(calls: Iterable[ModelCall]) -> dict[str, int]:
    """Calls per kind (``{"router": 1, "grader": 4, …}``), kinds in first-call order."""
    return dict(Counter(c["kind"] for c in made(calls)))


def tokens_by_model(calls: Iterable[ModelCall]) -> dict[str, Tokens]:
    """Input and output tokens per model name."""
    totals: dict[str, Tokens] = {}
    for call in calls:
        entry = totals.setdefault(call["model"], {"input": 0, "output": 0})
        entry["input"] += call["input_tokens"]
        entry["output"] += call["output_tokens"]
    return totals


def tokens_by_kind(calls: Iterable[ModelCall]) -> dict[str, KindTokens]:
    """Prompt, cached-prompt and output tokens per kind of call, kinds in first-call order.

    On a CPU model the prompt tokens *read* (``input - cached``) are what a question costs:
    ~19-70 tokens/s here, against ~10 tokens/s written.
    """
    totals: dict[str, KindTokens] = {}
    for call in calls:
        entry = totals.setdefault(call["kind"], {"input": 0, "cached": 0, "output": 0})
        entry["input"] += call["input_tokens"]
        entry["cached"] += call.get("cached_tokens", 0)
        entry["output"] += call["output_tokens"]
    return totals


def worst_case_calls(
    retrieve_k: int,
    max_rewrites: int,
    web_results: int,
    max_generations: int,
    judge_retries: int = 1,
    hypothetical_rewrite: bool = False,
    judge_conflicts: bool = False,
) -> int:
    """Most model calls a turn can make, as a formula of its limits.

    ``1 + (k(R+1) + w)(1+j) + R + h + G(1 + (1+j)(1+c))``: the router; every chunk of the
    ``R+1`` index rounds and the web round graded, each grader retried ``j`` times; ``R``
    rewrites, the first of them two calls (``h`` = 1) when it is a hypothetical rewrite
    whose passage was unusable and the rewriter was asked instead; ``G`` generations,
    each verified with up to ``1+j`` verifier calls and, when ``c`` = 1
    (``judge_conflicts``), up to ``1+j`` contradiction checks. ``max_model_calls`` caps
    the turn in any case.
    """
    attempts = 1 + judge_retries
    graders = (retrieve_k * (max_rewrites + 1) + web_results) * attempts
    rewrites = max_rewrites + (1 if hypothetical_rewrite and max_rewrites > 0 else 0)
    judges = attempts * (2 if judge_conflicts else 1)
    return 1 + graders + rewrites + max_generations * (1 + judges)


def worst_case_latency_s(calls: int, call_timeout_s: float, sdk_retries: int, models: int) -> float:
    """Longest a turn can take with no deadline: every call at its timeout.

    ``calls · timeout · (1 + sdk_retries) · models``, where ``calls`` is
    :func:`worst_case_calls` (judge retries included) and ``models`` counts the primary and
    its fallbacks. Grading runs in parallel, so this over-estimates.
    """
    return calls * call_timeout_s * (1 + sdk_retries) * models


def step_latency_s(
    call_timeout_s: float, sdk_retries: int, models: int, judge_retries: int = 1
) -> float:
    """Longest one super-step can take: one node's calls, each at its timeout.

    A deadline is checked between super-steps, so a run that misses it ends within
    ``deadline + step_latency_s`` (parallel graders share one step).
    """
    return call_timeout_s * (1 + sdk_retries) * models * (1 + judge_retries)
