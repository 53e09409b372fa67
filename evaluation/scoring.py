"""Scoring one reply to one labelled question: pure functions, no I/O.

An arm (the fleet's graph, or the naive baseline) turns an :class:`~evaluation.dataset.EvalItem`
into an :class:`Attempt`; :func:`score_item` judges it against the item's labels:

- **answerable kinds** (``answerable``, ``multi_hop``, ``paraphrase``): *correct* when it was
  answered, every keyword group occurs in the answer (any alternative of a group,
  case-insensitive substring) and at least one citation locator is one of the item's pages
  (a locator is an absolute path; it matches a page when it ends with ``"/" + page``);
  *hallucinated* when it was answered and is not correct.
- **unanswerable kinds** (``unanswerable``, ``off_domain``): *correct* when the arm
  abstained (status ``abstained``); *hallucinated* when it answered.
- *abstained* is "not answered" in both cases; a ``failed`` run (timeout, internal error,
  the apology) is not answered, scores 0 and is never correct.

The CRAG benchmark score (Yang et al. 2024) of an item is +1 for a correct answer, 0 for no
answer and -1 for a hallucinated one, whatever the kind: a well-placed abstention earns 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from evaluation.dataset import EvalItem

Arm = Literal["graph", "naive", "gold"]
Status = Literal["answered", "abstained", "failed"]

ANSWERABLE_KINDS: tuple[str, ...] = ("answerable", "multi_hop", "paraphrase")
UNANSWERABLE_KINDS: tuple[str, ...] = ("unanswerable", "off_domain")


class GradedChunk(BaseModel):
    """One grader verdict of a graph run, beside the chunk's label.

    Attributes:
        id: The chunk id.
        locator: Its source (absolute path).
        round: Retrieval round of the verdict (0-based).
        score: The grader's score in [0, 1].
        graded_relevant: The grader kept it (score at or above the lower threshold).
        labelled_relevant: By :func:`label_chunk`: one of the item's pages, with a keyword.
    """

    id: str
    locator: str
    round: int
    score: float
    graded_relevant: bool
    labelled_relevant: bool


class Attempt(BaseModel):
    """What one arm did with one question, before judging.

    Attributes:
        status: ``answered``, ``abstained`` or ``failed`` (no usable outcome).
        answer: The reply text (the graph arm's is empty when it did not answer).
        citations: Locators of the sources the answer cites, in citation order.
        route: The route taken (graph arm; ``None`` for the naive arm).
        reason: Abstention or failure reason code, ``None`` when answered.
        detail: A sentence on why, for people reading the results.
        model_calls: Chat-model calls made.
        prompt_tokens: Prompt tokens over those calls.
        cached_prompt_tokens: Of those, the ones the model server reused from its prompt
            cache (0 when it does not say).
        output_tokens: Completion tokens over those calls.
        latency_s: Seconds the arm took for this question (graph: the worker's run).
        graded: Grader verdicts with labels (graph arm only).
    """

    status: Status
    answer: str = ""
    citations: list[str] = Field(default_factory=list)
    route: str | None = None
    reason: str | None = None
    detail: str = ""
    model_calls: int = 0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    graded: list[GradedChunk] = Field(default_factory=list)


class ItemResult(Attempt):
    """An :class:`Attempt` judged against its item's labels.

    Attributes:
        item_id: The item's id.
        corpus: The item's corpus.
        kind: The item's kind.
        arm: ``graph`` or ``naive``.
        expected_route: The route the item's label expects.
        correct: See the module docstring.
        hallucinated: Answered and not correct.
        abstained: Not answered (``abstained`` or ``failed``).
        score: CRAG score: +1 correct answer, 0 no answer, -1 hallucinated.
    """

    item_id: str
    corpus: str
    kind: str
    arm: Arm
    expected_route: str
    correct: bool
    hallucinated: bool
    abstained: bool
    score: int


def is_answerable(kind: str) -> bool:
    """True for the kinds the corpus answers (``answerable``, ``multi_hop``, ``paraphrase``).

    Raises:
        ValueError: ``kind`` is not a known kind.
    """
    if kind in ANSWERABLE_KINDS:
        return True
    if kind in UNANSWERABLE_KINDS:
        return False
    raise ValueError(f"unknown item kind {kind!r}")


def occurs(keyword: str, text: str) -> bool:
    """True when ``keyword`` occurs in ``text``, case-insensitively.

    A keyword that starts or ends with a digit must not continue a number there: "10" is
    not found in "100" or "31.10" (a wrong figure must not pass for the right one), but
    is in "10 seconds" or "10ms".
    """
    lowered, key = text.lower(), keyword.lower()
    if not key[:1].isdigit() and not key[-1:].isdigit():
        return key in lowered
    before = r"(?<![\d.])" if key[:1].isdigit() else ""
    after = r"(?![\d]|\.\d)" if key[-1:].isdigit() else ""
    return re.search(before + re.escape(key) + after, lowered) is not None


def has_keywords(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """True when every group has an alternative in ``text`` (see :func:`occurs`).

    No groups means nothing is required (True).
    """
    return all(any(occurs(alt, text) for alt in group) for group in groups)


def has_any_keyword(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """True when at least one alternative of at least one group occurs in ``text``."""
    return any(occurs(alt, text) for group in groups for alt in group)


def matches_page(locator: str, pages: Iterable[str]) -> bool:
    """True when ``locator`` (an absolute path) is one of ``pages`` (relative to a corpus root).

    Matched on whole path components: ``/root/a/b.html`` matches ``b.html`` and
    ``a/b.html``, never ``xb.html``.
    """
    return any(locator == page or locator.endswith("/" + page) for page in pages)


def label_chunk(item: EvalItem, locator: str, text: str) -> bool:
    """The grader label of a chunk of ``locator`` with ``text``, for ``item``.

    Relevant when the chunk is from one of the item's pages and holds at least one keyword
    alternative; every chunk is irrelevant to an unanswerable kind.
    """
    if not is_answerable(item.kind):
        return False
    return matches_page(locator, item.pages) and has_any_keyword(text, item.answer_keywords)


def judge(item: EvalItem, attempt: Attempt) -> tuple[bool, bool, bool]:
    """Judge an attempt by the rules of the module docstring.

    Returns:
        ``(correct, hallucinated, abstained)``.

    Raises:
        ValueError: The item's kind is unknown.
    """
    answered = attempt.status == "answered"
    if is_answerable(item.kind):
        correct = (
            answered
            and states_facts(item, attempt.answer)
            and any(matches_page(c, item.pages) for c in attempt.citations)
        )
    else:
        correct = attempt.status == "abstained"
    return correct, answered and not correct, not answered


def states_facts(item: EvalItem, answer: str) -> bool:
    """Whether ``answer`` holds every keyword group of ``item`` (citation markers removed)."""
    return has_keywords(without_markers(answer), item.answer_keywords)


_MARKERS = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")


def without_markers(answer: str) -> str:
    """``answer`` without its citation markers: ``[2]`` must not pass for the number 2."""
    return _MARKERS.sub(" ", answer)


def crag_score(answered: bool, correct: bool) -> int:
    """+1 for a correct answer, 0 for no answer (a correct abstention too), -1 otherwise."""
    if not answered:
        return 0
    return 1 if correct else -1


def score_item(item: EvalItem, arm: Arm, attempt: Attempt) -> ItemResult:
    """Judge ``attempt`` (by arm ``arm``) of ``item``; see the module docstring.

    Raises:
        ValueError: The item's kind is unknown.
    """
    correct, hallucinated, abstained = judge(item, attempt)
    return ItemResult(
        **attempt.model_dump(),
        item_id=item.id,
        corpus=item.corpus,
        kind=item.kind,
        arm=arm,
        expected_route=item.expected_route,
        correct=correct,
        hallucinated=hallucinated,
        abstained=abstained,
        score=crag_score(not abstained, correct),
    )


class RetrievalResult(BaseModel):
    """The top-k search of an answerable item's question.

    Attributes:
        item_id: The item's id.
        kind: The item's kind.
        k: How many chunks were asked for.
        hit: A returned chunk is from one of the item's pages (hit@k).
        rank: 1-based rank of the first such chunk, ``None`` without a hit.
        answer_hit: A returned chunk is labelled relevant (:func:`label_chunk`): from one of
            the pages *and* holding a keyword, so the answer itself was retrieved.
        locators: The returned chunks' locators, best first.
    """

    item_id: str
    kind: str
    k: int
    hit: bool
    rank: int | None
    answer_hit: bool
    locators: list[str]


def retrieval_result(item: EvalItem, k: int, chunks: Sequence[tuple[str, str]]) -> RetrievalResult:
    """Hit@k of one answerable item from the chunks its search returned.

    Args:
        item: The item searched for.
        k: How many chunks were asked for.
        chunks: ``(locator, text)`` of each returned chunk, best first.

    Raises:
        ValueError: The item is of an unanswerable kind (it has no pages to hit).
    """
    if not is_answerable(item.kind):
        raise ValueError(f"{item.id}: hit@k is defined for answerable kinds, not {item.kind}")
    locators = [locator for locator, _ in chunks]
    rank = next((n for n, loc in enumerate(locators, 1) if matches_page(loc, item.pages)), None)
    return RetrievalResult(
        item_id=item.id,
        kind=item.kind,
        k=k,
        hit=rank is not None,
        rank=rank,
        answer_hit=any(label_chunk(item, locator, text) for locator, text in chunks),
        locators=locators,
    )
