"""Dependencies the graph needs, injected as LangGraph runtime context.

The worker builds one :class:`Deps` per job from its process-wide clients and passes it as
``graph.invoke(..., context=deps)``. Nodes reach it through ``runtime.context``; tests build
it from scripted fake chat models and small in-memory stand-ins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from langchain_core.language_models import BaseChatModel

from pipeline.conflicts import SourceTrust
from pipeline.documents import Document


class RetrievalError(RuntimeError):
    """The retriever could not answer (backend down, index missing, timeout).

    The graph treats this as a handled state (it records the failure and falls back or
    abstains); it never answers from an empty or partial result as if it were complete.
    """


class WebSearchError(RuntimeError):
    """The web-search provider failed or returned something unusable."""


class Retriever(Protocol):
    """Searches one tenant's own index."""

    def count(self) -> int:
        """Return the number of chunks in the tenant's index (0 if it does not exist).

        Raises:
            RetrievalError: The backend could not be reached.
        """
        ...

    def search(self, query: str, k: int) -> list[Document]:
        """Return up to ``k`` chunks for ``query``, best first.

        Raises:
            RetrievalError: The backend could not be reached or refused the query.
        """
        ...


class WebSearch(Protocol):
    """A third-party web-search provider. It only ever receives redacted queries."""

    def search(self, query: str, max_results: int) -> list[Document]:
        """Return up to ``max_results`` normalised web documents for ``query``.

        Raises:
            WebSearchError: The provider failed or answered with an unusable body.
        """
        ...


_PLACEHOLDER = re.compile(r"<[A-Z][A-Z_]*>")


@dataclass(frozen=True)
class Redaction:
    """The result of stripping personal data from a text.

    Attributes:
        text: The text with each personal-data span replaced by ``<ENTITY_TYPE>``.
        entities: Entity types found, in text order (e.g. ``["PERSON", "EMAIL_ADDRESS"]``).
        withheld: Why nothing may be sent (too little known-safe text was left after
            minimising, :mod:`redaction.minimise`); None when ``search_text`` may leave.
    """

    text: str
    entities: list[str] = field(default_factory=list)
    withheld: str | None = None

    @property
    def search_text(self) -> str:
        """The text as a search provider gets it: placeholders removed, spacing tidied.

        A token like ``<PERSON>`` says nothing to a search engine and skews its results, so
        redacted spans are dropped, and the commas, brackets and spaces left around them
        are collapsed ("I am <PERSON>, <EMAIL_ADDRESS>, phone <PHONE_NUMBER>." →
        "I am, phone.").
        """
        text = _PLACEHOLDER.sub(" ", self.text)
        text = re.sub(r"\(\s*\)|\[\s*\]", " ", text)
        text = re.sub(r"\s+([,.;!?]|:(?!:))", r"\1", text)
        text = re.sub(r"([,;])(\s*[,;])+", r"\1", text)  # ":" kept: "::1", "std::vector"
        text = re.sub(r"\s{2,}", " ", text).strip()
        return re.sub(r"^[,;:.\s]+", "", text)


class CircuitBreaker(Protocol):
    """Shared health of each model: skip one that keeps failing, probe it after a cool-down.

    Implementations keep their state where every worker sees it (Redis in the fleet).
    """

    def allow(self, model: str) -> bool:
        """True if a call to ``model`` may be made now (closed, or this call is the probe)."""
        ...

    def record(self, model: str, ok: bool) -> None:
        """Report the result of a call to ``model`` (an outage counts, a bad reply does not)."""
        ...


class Redactor(Protocol):
    """Replaces personal data in text before it leaves the fleet."""

    def redact(self, text: str, deny_terms: Sequence[str] = ()) -> Redaction:
        """Return ``text`` with personal data replaced; makes no network call.

        ``deny_terms`` are the tenant's own words that must never leave (customer names,
        project code names), matched case-insensitively as whole words.
        """
        ...


@dataclass(frozen=True)
class Limits:
    """Bounds and thresholds of one run. Counters in state are checked against these.

    Attributes:
        max_rewrites: Query rewrites allowed per run before falling back to web or abstaining.
        max_generations: Generation attempts allowed per run (first answer included).
        max_model_calls: Ceiling on chat-model calls per run; reaching it abstains.
        max_thread_calls: Ceiling on chat-model calls over all turns of a thread.
        retrieve_k: Chunks fetched from the index per retrieval round.
        min_relevant: Chunks that must pass grading to generate without falling back.
        upper_threshold: A round with a chunk scoring at least this is "correct" (CRAG).
        lower_threshold: Chunks scoring below this are discarded; a round with none at
            or above it is "incorrect" (CRAG). Between the two: "ambiguous".
        web_results: Results requested from the web-search provider.
        context_window_tokens: The smallest context window in the model chain, tokens;
            the thread's history is trimmed to fit a share of it.
        min_lexical_support: Least share of a claim's content words that its cited chunks
            must contain (checked in code before the verifier model).
        multi_hop: Two steps for questions whose facts sit on several pages: a compound
            question searched part by part (:mod:`corpus.compound`; the retriever is given
            the same setting), and a claim its sources lack searched for before the answer
            is written again (ITER-RETGEN). Off by default: on the held-out questions they
            answered 2 multi-hop questions more, both wrongly (README, *Answer quality*).
        recite_claims: A claim that fails the checks in code against the source it cites,
            but passes them against another kept source, cites that source instead
            (:func:`pipeline.grounding.recited`) before the verifier judges it. Off by
            default: on dev it answered no more questions correctly and shipped one more
            wrong answer (README, *Answer quality*).
        hypothetical_rewrite: The first rewrite of a turn asks the rewriter model for a
            passage that would answer the question and searches for the question and that
            passage together (HyDE, Gao et al. 2022); later rewrites write a new query.
        cross_check_k: Chunks fetched by the cross-check search for the fact the kept
            sources state (:mod:`pipeline.corroboration`); 0 turns it off.
        judge_conflicts: Before a verified answer that states a value ships, search the
            index for other pages on its fact and ask the verifier model whether one gives
            another value (:mod:`pipeline.contradiction`): one search, and one model call
            only when such a page is found.
    """

    max_rewrites: int = 2
    max_generations: int = 2
    max_model_calls: int = 40
    max_thread_calls: int = 1000
    retrieve_k: int = 4
    min_relevant: int = 1
    upper_threshold: float = 0.7
    lower_threshold: float = 0.3
    web_results: int = 3
    min_lexical_support: float = 0.6
    context_window_tokens: int = 8192
    multi_hop: bool = False
    recite_claims: bool = False
    hypothetical_rewrite: bool = False
    cross_check_k: int = 8
    judge_conflicts: bool = False


@dataclass(frozen=True)
class Models:
    """Chat models by role.

    A deployment can put a cheap model on grading and a different one on verification.

    Attributes:
        router: Picks the route (structured output).
        grader: Grades one chunk at a time (structured output).
        rewriter: Rewrites the retrieval query.
        generator: Writes the cited answer (structured output).
        verifier: Checks grounding and answer relevance; a different prompt from the
            generator's and, when configured, a different model.
        fallbacks: Models tried in order, with the same prompt and schema, when a role's
            model cannot be reached (timeouts, connection errors, rate limits, 5xx).
    """

    router: BaseChatModel
    grader: BaseChatModel
    rewriter: BaseChatModel
    generator: BaseChatModel
    verifier: BaseChatModel
    fallbacks: tuple[BaseChatModel, ...] = ()

    @classmethod
    def single(
        cls,
        llm: BaseChatModel,
        verifier: BaseChatModel | None = None,
        fallbacks: tuple[BaseChatModel, ...] = (),
    ) -> Models:
        """Use ``llm`` for every role except verification (``verifier`` or ``llm``)."""
        return cls(llm, llm, llm, llm, verifier or llm, fallbacks)


@dataclass(frozen=True)
class Deps:
    """Everything a run needs, passed as LangGraph runtime context.

    Attributes:
        tenant_id: The tenant the job belongs to.
        models: Chat models by role.
        retriever: The tenant's index, or ``None`` when the tenant has none.
        web_search: The web provider, or ``None`` when web search is off.
        redactor: Strips personal data from any query bound for the web.
        limits: Loop bounds and thresholds.
        allow_web: Per-job switch; ``False`` keeps the run inside the tenant's index.
        breaker: Shared circuit breaker for the models, or ``None`` (always try).
        deny_terms: The tenant's words that must never leave (redacted from web queries).
        trust: How far the tenant trusts each source; the trusted side of a conflict wins.
        on_conflict: What an unsettled conflict between kept sources ends in: ``"abstain"``
            (``conflicting_sources``) or ``"both"`` (an answer stating both values, each
            with its citation).
        vouch_trust: The lowest trust level that may alone vouch for a fact an answer gives
            (a number, date, version, command or identifier the question did not give);
            ``None`` (the default) vouches for nothing: any source may state a fact. A fact
            only lower-ranked sources state ends the turn as ``uncorroborated``
            (:mod:`pipeline.vouching`).
    """

    tenant_id: str
    models: Models
    retriever: Retriever | None
    web_search: WebSearch | None
    redactor: Redactor
    limits: Limits = field(default_factory=Limits)
    allow_web: bool = True
    breaker: CircuitBreaker | None = None
    deny_terms: tuple[str, ...] = ()
    trust: SourceTrust = field(default_factory=SourceTrust)
    on_conflict: Literal["abstain", "both"] = "abstain"
    vouch_trust: int | None = None

    @property
    def web_enabled(self) -> bool:
        """True when a provider is configured and the job allows the web."""
        return self.web_search is not None and self.allow_web
