"""Knowledge refinement: keep only the sentences of a chunk that bear on the question.

CRAG (Yan et al. 2024, §4.4) splits each kept document into strips, scores each strip and
recomposes the relevant ones, so the generator is not distracted by the rest of a chunk.
Here the strips are sentences and the score is lexical overlap with the question and the
current query: deterministic and free, so it adds no model call to the turn.
"""

from __future__ import annotations

import re

from pipeline.documents import Document
from pipeline.lexical import content_terms

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
MIN_OVERLAP = 2
"""Content terms a sentence must share with the question to stay (fewer if it has fewer)."""


def refine(doc: Document, question_terms: set[str]) -> Document:
    """Return ``doc`` with the sentences that share too few terms with the question removed.

    A sentence stays when it shares at least ``min(MIN_OVERLAP, len(question_terms))``
    content terms with the question; when none does, the best-overlapping one stays, so a
    chunk the grader kept is never emptied. Order is preserved.

    Args:
        doc: A chunk graded relevant.
        question_terms: :func:`~pipeline.lexical.content_terms` of the question and query.

    Returns:
        A copy of ``doc`` with the refined ``text`` (same id, so citations still hold).
    """
    sentences = [s for s in _SENTENCE.split(doc["text"]) if s.strip()]
    if not sentences or not question_terms:
        return doc
    overlaps = [len(content_terms(s) & question_terms) for s in sentences]
    need = min(MIN_OVERLAP, len(question_terms))
    kept = [s for s, n in zip(sentences, overlaps, strict=True) if n >= need]
    if not kept:
        kept = [sentences[overlaps.index(max(overlaps))]]
    return {**doc, "text": " ".join(kept)}
