"""One factory for the :class:`pipeline.documents.Document` values unit tests build."""

from __future__ import annotations

from typing import Any

from pipeline.documents import Document


def make_doc(text: str = "text", **fields: Any) -> Document:
    """A complete index chunk holding ``text``; ``fields`` override any key or add one.

    Defaults: id ``c1``, locator ``x``, title ``t``, tenant ``t``, updated 2026-01-01 UTC.
    """
    doc: dict[str, Any] = {
        "id": "c1",
        "text": text,
        "source_type": "index",
        "locator": "x",
        "title": "t",
        "updated_at": "2026-01-01T00:00:00Z",
        "tenant_id": "t",
    }
    doc.update(fields)
    return doc  # type: ignore[return-value]
