"""Structured-output models: what each model role must reply with.

Every schema forbids extra keys and has only required fields, so it works as an OpenAI
``json_schema`` response format and as a llama.cpp grammar. Strings and lists carry length
bounds: a grammar then cannot let a small model ramble until the token limit.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_SOURCES = 6
"""Most sources shown to the generator, so the highest source number it may cite."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RouteDecision(_Strict):
    """The router's reply."""

    route: Literal["vectorstore", "web_search", "direct"] = Field(
        description="vectorstore: the tenant's documents; web_search: recent or public "
        "information; direct: greetings or chit-chat that need no sources."
    )
    reason: str = Field(max_length=80, description="A few words on why.")


class GradeVerdict(_Strict):
    """A grader's reply on one chunk."""

    score: float = Field(
        ge=0.0,
        le=1.0,
        description="How well the source helps answer the question: 1.0 answers it, "
        "0.5 partly or indirectly, 0.0 not at all.",
    )
    reason: str = Field(max_length=60, description="A few words on why.")


class RewrittenQuery(_Strict):
    """The rewriter's reply."""

    query: str = Field(
        min_length=2, max_length=150, description="A new search query of at most 12 words."
    )


class HypotheticalPassage(_Strict):
    """A guessed answer passage, searched for beside the question and never shown.

    HyDE (Gao et al. 2022, "Precise Zero-Shot Dense Retrieval without Relevance Labels"):
    a passage written as the answer would be shares the answer's vocabulary (setting and
    function names) even when its facts are wrong, which a question alone may not.
    """

    passage: str = Field(
        min_length=2, max_length=300, description="Two sentences a manual would contain."
    )


class ClaimOut(_Strict):
    """One statement of the answer and the numbers of the sources that support it."""

    text: str = Field(max_length=200, description="One factual statement of the answer.")
    sources: list[Annotated[int, Field(ge=1, le=MAX_SOURCES)]] = Field(
        min_length=1, max_length=3, description="Numbers [n] of the sources that support it."
    )


class GeneratedAnswer(_Strict):
    """The generator's reply: the answer as cited claims; none when the sources do not answer.

    There is no separate prose field: the published answer is composed from the claims
    (:func:`pipeline.grounding.published_answer`), which halves the tokens the model writes
    (output runs at ~10 tokens/s on a CPU) and leaves no uncited sentence to check.
    """

    claims: list[ClaimOut] = Field(
        max_length=4,
        description="Every statement of the answer with its sources; empty when the sources "
        "do not answer the question.",
    )


LATIN_SCRIPT = r"^[\u0020-\u024F\u2000-\u206F\u2190-\u22FF]{0,200}$"
"""Latin letters with accents, digits, punctuation, arrows and maths signs, at most 200
characters (as a grammar a ``pattern`` replaces ``maxLength`` in llama.cpp, so the bound is
inside it). A claim is held to it when its question and sources are all Latin-script: a
multilingual model otherwise switches script mid-claim ("significantly 干扰")."""


class LatinClaimOut(ClaimOut):
    """A claim written in Latin script only (see :data:`LATIN_SCRIPT`)."""

    text: str = Field(
        max_length=200, pattern=LATIN_SCRIPT, description="One factual statement of the answer."
    )


class LatinGeneratedAnswer(GeneratedAnswer):
    """The generator's reply when the question and its sources are all in Latin script."""

    claims: list[LatinClaimOut] = Field(  # type: ignore[assignment]
        max_length=4,
        description="Every statement of the answer with its sources; empty when the sources "
        "do not answer the question.",
    )


class StandaloneQuestion(_Strict):
    """The condenser's reply: a follow-up rewritten to make sense on its own."""

    question: str = Field(min_length=2, max_length=400, description="The standalone question.")


class DirectReply(_Strict):
    """The reply to a greeting or small talk: no sources, so no claims."""

    answer: str = Field(max_length=500, description="A brief, polite reply.")


class ClaimVerdict(_Strict):
    """The verifier's verdict on one claim."""

    claim: int = Field(ge=1, le=4, description="Claim number, starting at 1.")
    supported: bool = Field(description="True only if the cited sources state it.")


class Verification(_Strict):
    """The verifier's reply: per-claim grounding and whether the answer resolves the question."""

    claims: list[ClaimVerdict] = Field(max_length=4)
    resolves_question: bool = Field(description="True if the answer answers the question.")


class DirectCheck(_Strict):
    """The verifier's reply on a direct (source-less) reply."""

    states_facts: bool = Field(
        description="True if the reply states any fact: names, numbers, dates, definitions."
    )


class PassageAnswer(_Strict):
    """What one passage answers to the question, as it writes it."""

    source: int = Field(ge=1, le=3, description="The source's number.")
    value: str = Field(
        max_length=40,
        description="The answer this source gives, copied exactly (a number with its unit, "
        "a version, a date or a name); '' if it gives none.",
    )


class PassageAnswers(_Strict):
    """The contradiction check's reply: each passage's own answer, compared in code."""

    answers: list[PassageAnswer] = Field(max_length=3)
