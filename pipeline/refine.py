"""Knowledge refinement: keep only the sentences of a chunk that bear on the question.

CRAG (Yan et al. 2024, §4.4) splits each kept document into strips, scores each strip and
recomposes the relevant ones, so the generator is not distracted by the rest of a chunk.
Here the strips are sentences and the score is lexical overlap with the question and the
current query: deterministic and free, so it adds no model call to the turn.

A sentence is kept *with its label*: the heading or term line it falls under
(``## 20.3. Connections``, ``superuser_reserved_connections (integer)``). Reference
documentation states most facts under such a label and never repeats the subject, so
"The default value is three connections." without its label reads as the default of
whatever the question asked about; a small model then answers with it.
"""

from __future__ import annotations

import re

from pipeline.documents import Document
from pipeline.lexical import content_terms

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LABEL_MAX = 90
MIN_OVERLAP = 2
"""Content terms a sentence must share with the question to stay (fewer if it has fewer)."""

GRADER_CHARS = 480
"""Most characters of a chunk a grader reads (~120 tokens; a chunk is up to 700)."""


class Strip:
    """One sentence of a chunk and the label (heading or term line) it falls under.

    ``term`` is true when the label is a term line (``max_wal_size (integer)``), not a
    Markdown heading.
    """

    __slots__ = ("label", "term", "text")

    def __init__(self, text: str, label: str | None, term: bool = False) -> None:
        self.text = text
        self.label = label
        self.term = term


def is_label(line: str) -> bool:
    """A Markdown heading, or a short line that does not end a sentence (a term, a title)."""
    line = line.strip()
    if line.startswith("#"):
        return True
    return 0 < len(line) <= _LABEL_MAX and not line.endswith((".", "!", "?", ":", ";", ","))


_WRAP_MIN = 60
"""Shortest line taken as hard-wrapped prose (a term line or a title is shorter)."""
_IDENTIFIER_HEADING = re.compile(r"#+\s*`?[A-Za-z][\w-]*[_.][\w.-]+`?(?:\s*\([a-z ]+\))?\s*")
"""A heading that is a setting's name (``## quokka_log_level``): a term line, not a title."""


def strips(text: str) -> list[Strip]:
    """Split ``text`` into sentences, each with the label line above it (``None`` at top).

    A label line is not a strip of its own; it is carried by the sentences under it.
    Lines wrapped mid-sentence (Markdown's hard wraps) are joined first, so the first half
    of a sentence is not taken for a label.
    """
    out: list[Strip] = []
    label: str | None = None
    term = False
    for line in _unwrapped(text):
        line = line.strip()
        if not line or line.startswith("```"):
            continue
        if is_label(line):
            heading = line.startswith("#")
            term = not heading or _IDENTIFIER_HEADING.fullmatch(line) is not None
            label = line.lstrip("#").strip()
            continue
        out.extend(Strip(s.strip(), label, term) for s in _SENTENCE.split(line) if s.strip())
    return out


def _unwrapped(text: str) -> list[str]:
    """The lines of ``text``, a prose line wrapped mid-sentence joined to the next.

    Wrapped: at least :data:`_WRAP_MIN` characters, not ending a sentence or a heading,
    outside a code block, and the next line goes on in lower case.
    """
    lines: list[str] = []
    fenced = False
    joining = False
    for raw in text.split("\n"):
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        if joining and line[:2].lstrip("`")[:1].islower():
            lines[-1] += " " + line
        else:
            lines.append(line)
        last = lines[-1]
        joining = (
            not fenced
            and len(last) >= _WRAP_MIN
            and not last.startswith(("#", "|", "```"))
            and re.search(r"[\w`,)]$", last) is not None
        )
    return lines


def _render(chosen: list[Strip]) -> str:
    """The chosen strips in order, each label written once before its first sentence."""
    lines: list[str] = []
    current: str | None = None
    for strip in chosen:
        if strip.label is not None and strip.label != current:
            lines.append(f"{strip.label}:")
            current = strip.label
        if lines and not lines[-1].endswith(":"):
            lines[-1] += " " + strip.text
        else:
            lines.append(strip.text)
    return "\n".join(lines)


def _overlap(strip: Strip, terms: set[str]) -> int:
    """Terms the sentence shares with the question, plus one when its term line shares any.

    Reference pages name the subject once, in the term line, and then say "The default is
    1 GB." under it: that sentence shares only "default" with "What is the default
    max_wal_size?", and without the label's term it was dropped while a sentence about
    "non-default values" of the same setting stayed. The label counts once, not per term,
    so a sentence under a matching label still needs a term of its own to pass
    :data:`MIN_OVERLAP`; a Markdown heading does not count (a page's title matches
    nearly every question put to the page).
    """
    own = len(content_terms(strip.text) & terms)
    labelled = strip.term and bool(content_terms(strip.label or "") & terms)
    return own + int(labelled)


def refine(doc: Document, question_terms: set[str]) -> Document:
    """Return ``doc`` with the sentences that share too few terms with the question removed.

    A sentence stays when it shares at least ``min(MIN_OVERLAP, len(question_terms))``
    content terms with the question, a term line above it that shares any counting as one
    term (see :func:`_overlap`; headings do not count: every sentence under a matching
    heading would pass); when none does, the
    best-overlapping one stays, so a chunk the grader kept is never emptied. Order is
    preserved and each kept sentence keeps its label.

    Args:
        doc: A chunk graded relevant.
        question_terms: :func:`~pipeline.lexical.content_terms` of the question and query.

    Returns:
        A copy of ``doc`` with the refined ``text`` (same id, so citations still hold).
    """
    parts = strips(doc["text"])
    if not parts or not question_terms:
        return doc
    overlaps = [_overlap(s, question_terms) for s in parts]
    need = min(MIN_OVERLAP, len(question_terms))
    kept = [s for s, n in zip(parts, overlaps, strict=True) if n >= need]
    if not kept:
        kept = [parts[overlaps.index(max(overlaps))]]
    return {**doc, "text": _render(kept)}


def excerpt(doc: Document, question_terms: set[str], max_chars: int = GRADER_CHARS) -> Document:
    """Return the part of ``doc`` a grader reads: its best sentences, at most ``max_chars``.

    Sentences are ranked by the content terms they share with the question, ties to the
    earlier one, taken while they fit (labels counted), and shown in
    their original order under their labels; a chunk that already fits is returned whole.
    On a CPU model every prompt token costs ~15-50 ms, and four graders reading whole
    chunks were the largest share of a question's prompt.

    Args:
        doc: A retrieved chunk.
        question_terms: :func:`~pipeline.lexical.content_terms` of the question.
        max_chars: Length budget of the excerpt's text, characters.

    Returns:
        A copy of ``doc`` with the excerpt as ``text`` (same id); never empty for a
        non-empty chunk (a first sentence longer than the budget is cut at a word).
    """
    if len(doc["text"]) <= max_chars:
        return doc
    parts = strips(doc["text"])
    if not parts:
        return {**doc, "text": doc["text"][:max_chars]}
    ranked = sorted(range(len(parts)), key=lambda i: (-_overlap(parts[i], question_terms), i))
    chosen: set[int] = set()
    for i in ranked:
        trial = sorted(chosen | {i})
        if len(_render([parts[j] for j in trial])) <= max_chars:
            chosen.add(i)
    if not chosen:
        best = parts[ranked[0]].text
        return {**doc, "text": best[:max_chars].rsplit(" ", 1)[0] + " …"}
    return {**doc, "text": _render([parts[i] for i in sorted(chosen)])}
