"""The value types the state's fields hold (records checkpointed as JSON-able values).

Graded chunks, model calls, citations, claims, generations, flagged sources, conflicts,
outcomes, earlier turns and a turn's budget.

The state that holds them and its reducers are in :mod:`pipeline.state`.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pipeline.documents import Document


class GradedDocument(TypedDict):
    """A grader's verdict on one chunk.

    Attributes:
        document: The chunk that was graded.
        score: The grader's relevance score in [0, 1] (0 for an unusable reply).
        relevant: ``score`` reached the lower threshold (kept as a source).
        reason: The grader's short reason (fed to the rewriter when too few survive).
        round: Retrieval round the verdict belongs to (0-based).
        usable: False when the grader's reply could not be parsed, even when asked again
            (absent in verdicts recorded before it existed: usable).
    """

    document: Document
    score: float
    relevant: bool
    reason: str
    round: int
    usable: NotRequired[bool]


class ModelCall(TypedDict):
    """One chat-model call of a turn.

    Attributes:
        kind: Its role: router, grader, rewriter, generator, verifier, direct_check.
        model: The model's name.
        ok: False when the reply was unusable or the model unreachable.
        input_tokens: Prompt tokens (0 when unknown).
        output_tokens: Completion tokens (0 when unknown).
        cached_tokens: Prompt tokens the server reused from its cache, so did not read
            again (0 when unknown; absent in calls recorded before it existed).
        error: Why it failed (``BadReply`` or the provider's error class), else ``None``.
    """

    kind: str
    model: str
    ok: bool
    input_tokens: int
    output_tokens: int
    cached_tokens: NotRequired[int]
    error: str | None


class Citation(TypedDict):
    """One numbered citation in a delivered answer."""

    n: int
    id: str
    locator: str
    title: str
    source_type: str


class Claim(TypedDict):
    """One statement of a generated answer with the ids of the chunks that support it."""

    text: str
    source_ids: list[str]


class Generation(TypedDict):
    """A generated answer before verification.

    Attributes:
        answer: Answer text with ``[n]`` markers, ``n`` indexing ``sources``.
        claims: The answer's statements and the chunk ids each one cites.
        sources: Chunk ids in citation order: ``[n]`` refers to ``sources[n - 1]``.
    """

    answer: str
    claims: list[Claim]
    sources: list[str]


class FlaggedSource(TypedDict):
    """A passage withheld from a retrieved source (:mod:`pipeline.callouts`).

    Attributes:
        id: The source's document id.
        locator: The source document.
        why: The kind of callout ("addressed to automated readers", ...).
        passage: The passage as written (at most 600 characters).
    """

    id: str
    locator: str
    why: str
    passage: str


class ConflictRecord(TypedDict):
    """Kept sources that disagreed, and how the turn settled it (:mod:`pipeline.conflicts`).

    Attributes:
        subject: The setting (``"shared_buffers"``).
        aspect: ``"default"``, ``"maximum"``, ``"minimum"``, ``"port"``, ``"version"`` or
            ``"date"``; ``"value"`` when the model read the conflict
            (:mod:`pipeline.contradiction`) for a question that names no aspect.
        values: Per value, as the first source writes it, the locators that give it.
        settled: ``"trust"`` (the trusted side won, the others were left out), ``"both"``
            (the answer states both, with their citations) or ``"abstained"``.
        winner: The winning value when ``settled`` is ``"trust"``, else ``None``.
        detail: One sentence for people reading the outcome.
    """

    subject: str
    aspect: str
    values: dict[str, list[str]]
    settled: Literal["trust", "both", "abstained"]
    winner: str | None
    detail: str


class CrossCheck(TypedDict):
    """The turn's second search for the fact its kept sources state (:mod:`pipeline.corroboration`).

    Attributes:
        query: What was searched (the setting and the aspect: ``"bgwriter_delay default"``).
        documents: The chunks it found on a side of a conflict with a kept source on the
            fact asked for (this turn's searches so far); they join the turn's sources.
        error: Why the search failed (``None`` when it ran).
    """

    query: str
    documents: list[Document]
    error: str | None


class Outcome(TypedDict):
    """What a turn ends with: an answer with verified citations, or an abstention.

    Attributes:
        status: ``"answered"`` or ``"abstained"``.
        answer: The answer text (empty for an abstention).
        citations: Verified citations, numbered as in the answer.
        reason: Abstention reason code (``AbstainReason``), ``None`` when answered.
        detail: A sentence on why, for people reading the outcome.
    """

    status: Literal["answered", "abstained"]
    answer: str
    citations: list[Citation]
    reason: str | None
    detail: str


class Turn(TypedDict):
    """An earlier turn of the conversation, kept for follow-up questions."""

    question: str
    status: str
    answer: str
    citations: list[Citation]


class Budget(TypedDict):
    """The limits of one turn, copied into state.

    Routing stays a pure function of state, and a resumed run keeps the limits it started
    with.
    """

    max_rewrites: int
    max_generations: int
    max_model_calls: int
    max_thread_calls: int
    min_relevant: int
    upper_threshold: float
    lower_threshold: float
    web_enabled: bool
    multi_hop: NotRequired[bool]
    """The multi-hop steps are on (:attr:`pipeline.deps.Limits.multi_hop`); absent in the
    state of runs that began before the setting existed: off."""
