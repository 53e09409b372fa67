"""Extractive answering: the generator picks the sources' own sentences instead of writing.

A small model that writes its answer copies a number from its own memory as readily as
from the source in front of it: the 1.5B default wrote "the default is 64MB" above a
chunk that says 4MB, and the checks then rightly refused the answer, so a question whose
answer was on screen ended as an abstention. In this mode (``CRAG_GENERATION=extractive``)
the refined sources are shown with every sentence numbered (``[S3] The default is 4MB.``)
and the generator replies with the numbers of the sentences that answer the question; the
claims are those sentences, verbatim, each citing its own source. What a claim states is
then exactly what its source states, and the model writes a few digits instead of a
sentence (output runs at ~10 tokens/s on a CPU). The verifier still judges every claim
and whether the claims resolve the question.

Selecting supporting sentences rather than generating them is the sentence-selection
reading of extractive QA (Min et al. 2018, "Efficient and Robust Question Answering from
Minimal Context over Documents"; the strips are CRAG's knowledge refinement, Yan et al.
2024, §4.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal, cast

from pydantic import Field, create_model

from pipeline.documents import Document
from pipeline.refine import Strip, refined_strips
from pipeline.schemas import ExtractedAnswer
from pipeline.values import Claim

MAX_PICKED = 2
"""Most sentences one answer may consist of."""


@dataclass(frozen=True)
class Sentence:
    """One numbered sentence shown to the generator.

    Attributes:
        number: Its number in the prompt (``[S n]``), from 1 over all shown sources.
        source_id: The chunk it comes from.
        claim: The claim it becomes when picked: the sentence, after its term line
            (``max_connections (integer): The default is typically 100 connections.``) so
            the claim names its subject; a Markdown heading is not repeated.
    """

    number: int
    source_id: str
    claim: str


def numbered_sources(
    docs: Sequence[Document], question_terms: set[str]
) -> tuple[list[Document], list[Sentence]]:
    """Refine each of ``docs`` and number its kept sentences, 1 upwards across all of them.

    Args:
        docs: The sources shown to the generator, in their shown order.
        question_terms: :func:`~pipeline.lexical.content_terms` of the question and query.

    Returns:
        Copies of ``docs`` whose ``text`` is the numbered rendering (label lines, then one
        ``[S n] sentence`` a line; a chunk with no sentence is one numbered sentence whole),
        and the sentences in number order. Deterministic: the verifier's prompt renders the
        same text, so the model server reuses the generator's prefix.
    """
    shown: list[Document] = []
    sentences: list[Sentence] = []
    for doc in docs:
        kept = refined_strips(doc, question_terms) or [Strip(doc["text"].strip(), None)]
        lines: list[str] = []
        label: str | None = None
        for strip in kept:
            if strip.label is not None and strip.label != label:
                lines.append(f"{strip.label}:")
                label = strip.label
            number = len(sentences) + 1
            lines.append(f"[S{number}] {strip.text}")
            claim = f"{strip.label}: {strip.text}" if strip.term and strip.label else strip.text
            sentences.append(Sentence(number, doc["id"], claim))
        shown.append({**doc, "text": "\n".join(lines)})
    return shown, sentences


def extraction_schema(count: int) -> type[ExtractedAnswer]:
    """The generator's reply schema for ``count`` numbered sentences.

    The numbers are an enum of ``1..count``, so a grammar-constrained model cannot name a
    sentence that was not shown.

    Raises:
        ValueError: ``count`` is below 1.
    """
    if count < 1:
        raise ValueError(f"no sentences to pick from (count={count})")
    number = Literal[tuple(range(1, count + 1))]  # type: ignore[valid-type]
    model = create_model(
        "ExtractedAnswer",
        __base__=ExtractedAnswer,
        sentences=(
            list[Annotated[number, Field()]],  # type: ignore[valid-type]
            Field(
                max_length=MAX_PICKED,
                description="Numbers of the sentences that state the answer; empty when "
                "no sentence does.",
            ),
        ),
    )
    return cast(type[ExtractedAnswer], model)


def picked_claims(picked: Sequence[int], sentences: Sequence[Sentence]) -> list[Claim]:
    """The claims of an extractive answer: each picked sentence, once, citing its source.

    Args:
        picked: Sentence numbers from the generator's reply, in its order.
        sentences: What :func:`numbered_sources` returned.

    Raises:
        ValueError: A number names no sentence (the schema's enum prevents it from a model
            that follows the grammar).
    """
    by_number = {s.number: s for s in sentences}
    claims: list[Claim] = []
    for n in dict.fromkeys(picked):
        if n not in by_number:
            raise ValueError(f"sentence [S{n}] was not shown (1..{len(sentences)})")
        sentence = by_number[n]
        claims.append({"text": sentence.claim, "source_ids": [sentence.source_id]})
    return claims
