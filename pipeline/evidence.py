"""Evidence selection for verification: the passage of a cited chunk that a claim rests on.

A 1.5B verifier shown a whole chunk approves a claim whose words are all somewhere in it,
even when they come from different entries: "The --keep-redundant-commits option appends a
'(cherry picked from commit …)' line" takes the option from one entry of the cherry-pick
page and the behaviour from the ``-x`` entry beside it, and passed. Fact-verification
pipelines first select the evidence sentences for a claim, then judge the claim against
those alone (FEVER: Thorne et al. 2018, "FEVER: a Large-scale Dataset for Fact Extraction
and VERification"; attribution to an identified passage: Rashkin et al. 2023, "Measuring
Attribution in Natural Language Generation Models"). Here the selection is lexical and
free: each claim is shown with the one passage of each cited chunk (its label line and up
to two consecutive sentences) that holds the claim's numbers and names and most of its
words, so a claim stitched from two entries finds no single passage that states it.
"""

from __future__ import annotations

from pipeline.documents import Document
from pipeline.lexical import content_terms, identifiers, numbers
from pipeline.refine import strips

WINDOW_SENTENCES = 2
"""Most consecutive sentences in one passage (a fact and the sentence that qualifies it)."""


def evidence_window(claim: str, text: str, width: int = WINDOW_SENTENCES) -> str:
    """The passage of ``text`` that best supports ``claim``.

    Passages are a label line (heading or term line) with 1 to ``width`` consecutive
    sentences under it (:func:`pipeline.refine.strips`). Ranked by: holds every number and
    identifier of the claim; then the share of the claim's content terms it holds; then
    shorter. Ties go to the earlier passage.

    Args:
        claim: One claim's text.
        text: A cited chunk's text.
        width: Most sentences in a passage.

    Returns:
        The passage as ``"label: sentence sentence"`` (no label at the top of a chunk);
        ``text`` itself when it has no sentences (a table, a code block).
    """
    parts = strips(text)
    if not parts:
        return text
    terms = content_terms(claim)
    keys = numbers(claim) | identifiers(claim)
    best: tuple[bool, float, int] | None = None
    chosen = text
    for i in range(len(parts)):
        for j in range(i + 1, min(i + width, len(parts)) + 1):
            run = parts[i:j]
            if any(p.label != run[0].label for p in run):
                break  # a passage does not cross into another entry
            body = " ".join(p.text for p in run)
            passage = f"{run[0].label}: {body}" if run[0].label else body
            lowered = passage.lower()
            keyed = all(k.lower() in lowered for k in keys) and not numbers(claim) - numbers(
                passage
            )
            share = len(terms & content_terms(passage)) / len(terms) if terms else 1.0
            rank = (keyed, share, -len(passage))
            if best is None or rank > best:
                best, chosen = rank, passage
    return chosen


def claim_evidence(claim: str, doc: Document) -> Document:
    """``doc`` cut to the passage that best supports ``claim`` (:func:`evidence_window`)."""
    return {**doc, "text": evidence_window(claim, doc["text"])}
