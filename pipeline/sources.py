"""The sources of an answer: which kept chunks a turn answers from, and what of them is shown.

Read by generation, verification, conflict settling and the search for what an answer
lacked, so each sees the same sources in the same order.
"""

from __future__ import annotations

from pipeline.corroboration import corroborating
from pipeline.documents import Document
from pipeline.lexical import content_terms
from pipeline.refine import refine
from pipeline.schemas import MAX_SOURCES
from pipeline.state import CragState, asked


def relevant_documents(state: CragState) -> list[Document]:
    """The sources of an answer, without repeats.

    The chunks the cross-check search found in a conflict first (when trust settles it for
    them they are the answer's source, :func:`pipeline.corroboration.corroborating`), then
    index chunks kept from an ambiguous round, then the chunks graded relevant in the
    current round, best score first; never a source a more trusted one contradicts
    (``distrusted``).
    """
    graded = sorted(
        (g for g in state.get("graded", []) if g["relevant"]), key=lambda g: -g["score"]
    )
    seen: set[str] = set(state.get("distrusted", []))
    sources = []
    for doc in [*corroborating(state), *state.get("kept", []), *(g["document"] for g in graded)]:
        if doc["id"] not in seen:
            seen.add(doc["id"])
            sources.append(doc)
    return sources


def sources_shown(state: CragState) -> list[Document]:
    """The sources the generator is shown, numbered from 1 in this order.

    The best :data:`~pipeline.schemas.MAX_SOURCES` relevant chunks, each refined to the
    sentences that bear on the question and the current query (CRAG §4.4).
    """
    return [refined(state, d) for d in relevant_documents(state)[:MAX_SOURCES]]


def refined(state: CragState, doc: Document) -> Document:
    """``doc`` cut to the sentences that bear on the question and the current query."""
    return refine(doc, content_terms(f"{asked(state)} {state.get('query', '')}"))
