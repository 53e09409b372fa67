"""Graph state, the input of a turn, and the reducers that merge node updates.

A thread (``thread_id``) is a conversation: its state persists in the checkpointer across
jobs. Per-turn fields are reset by the first node of every turn (``begin_turn``); counters
live here, so limits hold across resume and replay.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from pipeline.documents import Document
from pipeline.values import (
    Budget,
    ConflictRecord,
    CrossCheck,
    FlaggedSource,
    Generation,
    GradedDocument,
    ModelCall,
    Outcome,
    Turn,
)

Route = Literal["vectorstore", "web_search", "direct", "history", "none"]
"""Where a question goes. The router model picks among the first three; the rules in code
may also choose ``"history"`` (answered earlier in the thread) or ``"none"`` (no source
available at all)."""

AbstainReason = Literal[
    "no_relevant_sources",
    "conflicting_sources",
    "uncorroborated",
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
    hypothesis: NotRequired[str | None]
    """A guessed answer passage the next index round searches for beside ``query`` (the
    first rewrite, HyDE: :class:`pipeline.schemas.HypotheticalPassage`); never shown to a
    model that answers or checks, and never sent to the web. ``None`` otherwise."""
    route: Route
    """The router's decision after hard rules were applied."""
    route_reason: str
    """Why that route (the model's reason, or the rule that overrode it)."""
    documents: list[Document]
    """Chunks of the current retrieval round, before grading."""
    kept: list[Document]
    """Graded chunks carried into the next round: index chunks of an ambiguous round that
    the web augments, or the sources of an answer whose missing facts are searched for."""
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
    cross_check: NotRequired[CrossCheck | None]
    """The turn's latest search for the fact its kept sources state, once they state a
    value the question asks for (:mod:`pipeline.corroboration`); ``None`` until then."""
    uncorroborated: NotRequired[str | None]
    """Why the answer was withheld under the tenant's vouching rule: a fact it gives that no
    source ranked high enough states (:mod:`pipeline.vouching`); ``None`` otherwise."""
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
    lacking: NotRequired[list[str]]
    """Claims of the latest generation that the sources they cite do not support, by the
    checks in code (a number, a name or most words missing): what the answer needed and
    the sources lacked, so the next retrieval searches for them (``rewrite_query``)."""
    claim_verdicts: NotRequired[list[bool]]
    """Verifier: per claim of the latest generation, in order, whether its cited chunks
    support it (empty when the checks in code decided without the verifier model)."""
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


THREAD_FIELDS = frozenset({"history", "thread_calls"})
"""Fields that outlive a turn: the thread's earlier turns and its model calls."""

TURN_INPUT_FIELDS = frozenset({"question", "query", "budget"})
"""Fields ``begin_turn`` sets from the turn's input and the job's limits."""

SET_BEFORE_READ = frozenset({"route", "route_reason", "round_source"})
"""Per-turn fields a node always writes before any other reads them (the router; each
retrieval round), so they need no start value."""


def turn_reset() -> dict[str, Any]:
    """The start values of every other per-turn field, fresh each call (``begin_turn``).

    Together with :data:`THREAD_FIELDS`, :data:`TURN_INPUT_FIELDS` and
    :data:`SET_BEFORE_READ` it covers every field of :class:`CragState` exactly once
    (a unit test holds it to that), so a new field cannot be forgotten by the reset.
    """
    return {
        "standalone": None,
        "queries_tried": [],
        "hypothesis": None,
        "documents": [],
        "kept": [],
        "round": -1,
        "graded": [RESET],
        "retrieval_error": None,
        "web_query": None,
        "web_skipped": None,
        "flagged": [],
        "conflict": None,
        "distrusted": [],
        "cross_check": None,
        "uncorroborated": None,
        "web_used": False,
        "generation": None,
        "feedback": "",
        "grounded": None,
        "resolves": None,
        "claim_verdicts": [],
        "lacking": [],
        "duplicate_query": False,
        "rewrites": 0,
        "generations": 0,
        "calls": [RESET],
        "model_error": None,
        "model_unusable": None,
        "outcome": None,
        "trace": [RESET],
    }


def asked(state: CragState) -> str:
    """The question the turn answers: the standalone form of a follow-up, else the message."""
    return state.get("standalone") or state["question"]
