"""Retrieved sources screened before any prompt sees them: callouts aimed at automated readers.

Used by every node that brings documents into a turn (index and web rounds, the
cross-check search of :mod:`pipeline.corroboration`).
"""

from __future__ import annotations

from pipeline.callouts import WITHHELD, withhold_callouts
from pipeline.documents import Document
from pipeline.state import CragState, Update
from pipeline.values import FlaggedSource


def screened(state: CragState, docs: list[Document]) -> Update:
    """The round's documents with every callout aimed at automated readers cut out.

    The passages (:func:`pipeline.callouts.withhold_callouts`) are recorded in ``flagged``
    and replaced in the text every prompt sees; a document left with nothing else is
    dropped. The stored chunk, its id and its citation are unchanged.
    """
    flagged = list(state.get("flagged", []))
    clean: list[Document] = []
    for doc in docs:
        text, callouts = withhold_callouts(doc["text"])
        for c in callouts:
            flag: FlaggedSource = {
                "id": doc["id"],
                "locator": doc["locator"],
                "why": c.why,
                "passage": c.passage,
            }
            if flag not in flagged:  # a later round may retrieve the same chunk again
                flagged.append(flag)
        if callouts:
            if len(text.replace(WITHHELD, "").strip()) < _MIN_SCREENED_CHARS:
                continue
            doc = {**doc, "text": text}
        clean.append(doc)
    return {"documents": clean, "flagged": flagged}


_MIN_SCREENED_CHARS = 40
"""A screened document with less text than this left is dropped: it was the callout."""
