"""The one document contract shared by index chunks and web results.

Every source the graph can grade or cite has this shape, whether it came from the tenant's
Elasticsearch index or from a web-search provider. Documents are plain ``TypedDict`` values
so they serialise into the Postgres checkpointer without custom types.
"""

from __future__ import annotations

import hashlib
from typing import Literal, NotRequired, TypedDict

SourceType = Literal["index", "web"]


class Document(TypedDict):
    """A gradable, citable unit of text.

    Attributes:
        id: Stable id: ``chunk_id(locator, position)`` for index chunks, a hash of the URL
            for web results. The same source always gets the same id.
        text: The chunk text (web results: cleaned and truncated to a budget).
        source_type: ``"index"`` or ``"web"``.
        locator: Where it came from: a file path or document reference, or a URL.
        title: Human-readable title of the source document.
        updated_at: RFC 3339 time the source was last modified (web: fetch time).
        tenant_id: The tenant whose index or request produced it.
        position: Chunk position within its source (0-based); 0 for web results.
        score: Retrieval score from the backend, when it gives one.
    """

    id: str
    text: str
    source_type: SourceType
    locator: str
    title: str
    updated_at: str
    tenant_id: str
    position: NotRequired[int]
    score: NotRequired[float]


def chunk_id(locator: str, position: int) -> str:
    """Return the stable id of the chunk at ``position`` of the source at ``locator``.

    Args:
        locator: Source path or URL, exactly as stored in the document's ``locator``.
        position: 0-based chunk position within the source.

    Returns:
        A 32-character hex string (first 128 bits of SHA-256 of ``locator#position``).
    """
    return hashlib.sha256(f"{locator}#{position}".encode()).hexdigest()[:32]
