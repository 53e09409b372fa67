"""Graph state, the input of a turn, and the reducers that merge node updates.

A thread (``thread_id``) is a conversation: its state persists in the checkpointer across
jobs. Per-turn fields are reset by the first node of every turn (``begin_turn``); counters
live here, so limits hold across resume and replay.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from pipeline.documents import Document

Route = Literal["vectorstore", "web_search", "direct", "history", "none"]
"""Where a question goes. The router model picks among the first three; the rules in code
may also choose ``"history"`` (answered earlier in the thread) or ``"none"`` (no source
available at all)."""

AbstainReason = Literal[
    "no_relevant_sources",
    "conflicting_sources",
    "ungrounded",
    "off_target",
    "budget_exhausted",
    "model_unavailable",
    "model_unusable",
    "retrieval_unavailable",
]
"""Reason codes of an abstention."""

Update = dict[str, Any]
"""A node's partial state update."""

CIRCUIT_OPEN = "CircuitOpen"
"""The ``error`` of a hop that skipped a model whose circuit is open (no call was made)."""

RESET = "__reset__"
"""First element of an update that clears a list channel before appending the rest."""


def append_or_reset(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Reducer: append ``right`` to ``left``, or start over when ``right[0] == RESET``.

    Parallel ``Send`` branches (one grader per chunk) each append their verdict; a new
    retrieval round sends ``[RESET]`` so verdicts graded against an earlier query never
    count in the next round.

    Args:
        left: The channel's current value (``None`` before the first write).
        right: A node's update.

    Returns:
        The merged list (a new list; inputs are not mutated).
    """
    if not right:
        return list(left or [])
    if right[0] == RESET:
        return list(right[1:])
    return [*(left or []), *right]


def latest(left: Any, right: Any) -> Any:
    """Reducer: the last write wins; several writes in one super-step are allowed.

    Parallel graders may each report a model outage in the same super-step.
    """
    return right


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
            ``"date"``.
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


class TurnInput(TypedDict):
    """The input of one turn (one job): just the user's question."""

    question: str


class CragState(TypedDict, total=False):
    """The state of a corrective RAG run on one thread (every key optional until set)."""

    question: str
    """The user's message, unchanged all turn."""
    standalone: str | None
    """A follow-up rewritten to stand alone using the thread's history (None: first turn or
    the condenser failed); graders, generator and verifier judge against :func:`asked`."""
    budget: Budget
    """Limits of this turn (from :class:`pipeline.deps.Limits` and the job's options)."""
    query: str
    """The retrieval query; the rewriter changes it."""
    queries_tried: list[str]
    """Every query used for retrieval this turn, in order."""
    route: Route
    """The router's decision after hard rules were applied."""
    route_reason: str
    """Why that route (the model's reason, or the rule that overrode it)."""
    documents: list[Document]
    """Chunks of the current retrieval round, before grading."""
    kept: list[Document]
    """Index chunks kept for generation when an ambiguous round is augmented with the web."""
    round: int
    """Retrieval round counter this turn (index and web rounds alike)."""
    round_source: Literal["index", "web"]
    """Where the current round's documents came from."""
    graded: Annotated[list[GradedDocument], append_or_reset]
    """Verdicts of the current round; reset at each new round."""
    retrieval_error: str | None
    """Set when the index or web search failed this round (a handled state)."""
    web_query: str | None
    """The redacted query that left for web search, if any."""
    web_skipped: NotRequired[str | None]
    """Why this turn's web round sent nothing (too little known-safe text was left after
    minimising the query, :mod:`redaction.minimise`); the round then counts as one that
    found nothing."""
    flagged: NotRequired[list[FlaggedSource]]
    """Passages cut from this turn's retrieved sources before any prompt saw them: callouts
    aimed at automated readers (:mod:`pipeline.callouts`)."""
    conflict: NotRequired[ConflictRecord | None]
    """Kept sources that disagreed on the fact the answer needs (:mod:`pipeline.conflicts`),
    and how it was settled; ``None`` when they agreed."""
    distrusted: NotRequired[list[str]]
    """Ids of sources left out of generation because a more trusted source contradicts
    them."""
    web_used: bool
    """True once a web search ran this turn."""
    generation: Generation | None
    """The latest generated answer, awaiting or past verification."""
    feedback: str
    """Why the last generation failed verification (fed back to the generator)."""
    grounded: bool | None
    """Verifier: every claim is supported by the chunks it cites."""
    resolves: bool | None
    """Verifier: the answer resolves the question."""
    duplicate_query: bool
    """The last rewrite repeated a query already tried (normalised comparison)."""
    rewrites: int
    """Query rewrites spent this turn."""
    generations: int
    """Generation attempts spent this turn."""
    thread_calls: int
    """Model calls of the thread's earlier turns (not reset by a new turn)."""
    calls: Annotated[list[ModelCall], append_or_reset]
    """Every chat-model call of this turn (parallel graders append theirs)."""
    model_error: Annotated[str | None, latest]
    """Set when a model could not be reached; the turn abstains."""
    model_unusable: NotRequired[str | None]
    """Set when a model's reply that the turn could not go on without was unusable (not
    valid for its schema, even when asked again); the turn abstains ``model_unusable``
    instead of reading it as "nothing found" and going to the web."""
    outcome: Outcome | None
    """The turn's result, set by ``finalize`` or ``abstain``."""
    trace: Annotated[list[str], append_or_reset]
    """Node path of this turn, with decisions (``"route:vectorstore"``)."""
    history: Annotated[list[Turn], append_or_reset]
    """Earlier turns on this thread."""


def asked(state: CragState) -> str:
    """The question the turn answers: the standalone form of a follow-up, else the message."""
    return state.get("standalone") or state["question"]
