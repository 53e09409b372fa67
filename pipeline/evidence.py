"""Evidence selection for verification: the passage of a cited chunk that a claim rests on.

A 1.5B verifier shown a whole chunk approves a claim whose words are all somewhere in it,
even when they come from different entries: "The --keep-redundant-commits option appends a
'(cherry picked from commit …)' line" takes the option from one entry of the cherry-pick
page and the behaviour from the ``-x`` entry beside it, and passed. Fact-verification
pipelines first select the evidence sentences for a claim, then judge the claim against
those alone (FEVER: Thorne et al. 2018, "FEVER: a Large-scale Dataset for Fact Extraction
and VERification"; attribution to an identified passage: Rashkin et al. 2023, "Measuring
Attribution in Natural Language Generation Models"). Here the selection is lexical and
free: each claim is shown with the one passage of each cited chunk (its label line and one
or two sentences of that entry) that holds the claim's numbers and names and most of its
words, so a claim stitched from two entries finds no single passage that states it.
"""

from __future__ import annotations

from pipeline.documents import Document
from pipeline.lexical import content_terms, identifiers, numbers
from pipeline.refine import Strip, strips
from pipeline.sanitize import neutralise

REACH = 6
"""Furthest apart, in sentences of one entry, the two sentences of a passage may be."""
FALLBACK_CHARS = 700
"""Most characters shown of a chunk that has no sentences (a table, a code block): a
chunk's length (``corpus`` chunks are 700 characters), so a long web page without
sentence ends is not repeated whole under every claim."""


def evidence_window(claim: str, text: str) -> str:
    """The passage of ``text`` that best supports ``claim``.

    A passage is one sentence, or two (a fact and the sentence that qualifies it), of one
    entry (the sentences under one label line, :func:`pipeline.refine.strips`), at most
    :data:`REACH` sentences apart, shown after their label. Ranked by: every number of the
    claim is among the passage's numbers and every setting, function or option it names
    among the passage's names (whole names: ``work_mem`` is not ``maintenance_work_mem``);
    then the share of the claim's content terms in the sentences, a term-line label
    counting as one term when it shares any (a Markdown heading's words do not count: every sentence
    under "## Backups" would otherwise be about backups); then shorter. Ties go to the
    earlier passage.

    Args:
        claim: One claim's text.
        text: A cited chunk's text, already neutralised (:func:`claim_evidence`).

    Returns:
        The passage as ``"label: sentence sentence"`` (no label at the top of a chunk);
        for a chunk with no sentences, its text, cut to :data:`FALLBACK_CHARS` around the
        line that shares most terms with the claim.
    """
    parts = strips(text)
    if not parts:
        return _fallback(claim, text)
    terms = content_terms(claim)
    claimed_numbers, names = numbers(claim), identifiers(claim)
    best: tuple[bool, float, int] | None = None
    chosen = text
    for i, first in enumerate(parts):
        later = [p for p in parts[i + 1 : i + 1 + REACH] if p.label == first.label]
        for run in [[first], *([first, p] for p in later)]:
            passage = _render(run)
            keyed = claimed_numbers <= numbers(passage) and names <= identifiers(passage)
            rank = (keyed, _share(terms, run), -len(passage))
            if best is None or rank > best:
                best, chosen = rank, passage
    return chosen


def _render(run: list[Strip]) -> str:
    body = " ".join(p.text for p in run)
    return f"{run[0].label}: {body}" if run[0].label else body


def _share(terms: set[str], run: list[Strip]) -> float:
    """Share of ``terms`` in the sentences of ``run``; a matching term line adds one."""
    if not terms:
        return 1.0
    found = content_terms(" ".join(p.text for p in run)) & terms
    label = run[0].label or ""
    labelled = run[0].term and bool(content_terms(label) & terms - found)
    return (len(found) + int(labelled)) / len(terms)


def _fallback(claim: str, text: str) -> str:
    """``text`` cut to :data:`FALLBACK_CHARS` around its line that shares most with ``claim``."""
    if len(text) <= FALLBACK_CHARS:
        return text
    terms = content_terms(claim)
    lines = text.split("\n")
    best = max(range(len(lines)), key=lambda i: (len(content_terms(lines[i]) & terms), -i))
    start = sum(len(line) + 1 for line in lines[:best])
    begin = max(0, min(start - FALLBACK_CHARS // 4, len(text) - FALLBACK_CHARS))
    return text[begin : begin + FALLBACK_CHARS]


def claim_evidence(claim: str, doc: Document) -> Document:
    """``doc`` cut to the passage that best supports ``claim`` (:func:`evidence_window`).

    The chunk is neutralised first (:func:`pipeline.sanitize.neutralise`), as a source
    shown whole would be: a planted instruction then cannot become a passage of its own,
    nor be chosen because it repeats the claim's false figure.
    """
    return {**doc, "text": evidence_window(claim, neutralise(doc["text"])[0])}
