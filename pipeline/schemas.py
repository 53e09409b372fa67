"""Structured-output models: what each model role must reply with.

Every schema forbids extra keys and has only required fields, so it is valid as an OpenAI
``json_schema`` response format with ``strict: true`` and as a llama.cpp grammar.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RouteDecision(_Strict):
    """The router's reply."""

    route: Literal["vectorstore", "web_search", "direct"] = Field(
        description="vectorstore: the tenant's documents; web_search: recent or public "
        "information; direct: greetings or chit-chat that need no sources."
    )
    reason: str = Field(description="One short sentence on why.")


class GradeVerdict(_Strict):
    """A grader's reply on one chunk."""

    relevant: Literal["yes", "no"] = Field(
        description="yes if the source contains information that helps answer the question."
    )
    reason: str = Field(description="One short sentence on why.")


class RewrittenQuery(_Strict):
    """The rewriter's reply."""

    query: str = Field(description="A new search query for the question.")


class ClaimOut(_Strict):
    """One statement of the answer and the numbers of the sources that support it."""

    text: str = Field(description="One factual statement made in the answer.")
    sources: list[int] = Field(description="Numbers [n] of the sources that support it.")


class GeneratedAnswer(_Strict):
    """The generator's reply."""

    answer: str = Field(description="The answer, citing sources inline as [1], [2].")
    claims: list[ClaimOut] = Field(description="Every statement in the answer, with sources.")


class ClaimVerdict(_Strict):
    """The verifier's verdict on one claim."""

    claim: int = Field(description="Claim number, starting at 1.")
    supported: bool = Field(description="True only if the cited sources state it.")


class Verification(_Strict):
    """The verifier's reply: per-claim grounding and whether the answer resolves the question."""

    claims: list[ClaimVerdict]
    resolves_question: bool = Field(description="True if the answer answers the question.")
