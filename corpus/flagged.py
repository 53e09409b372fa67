"""The chunks of a tenant's index flagged at ingest, for review (``crag flagged``).

A chunk holding a callout aimed at automated readers (:mod:`pipeline.callouts`) is stored
with the callout's kind and passage in its metadata; this lists them. The same passages are
cut out again at retrieval, so a chunk ingested before the flags existed is still screened;
``crag ingest`` on its files again records them here.
"""

from __future__ import annotations

from dataclasses import dataclass

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError

from corpus.errors import IngestError
from corpus.index import (
    FLAGGED_PASSAGES_FIELD,
    FLAGS_FIELD,
    LOCATOR_FIELD,
    METADATA_FIELD,
    index_name,
)


@dataclass(frozen=True)
class FlaggedChunk:
    """A stored chunk with at least one flagged passage.

    Attributes:
        chunk_id: The chunk's id.
        locator: The source document.
        position: The chunk's position in it (0-based).
        flags: Why each passage was flagged, in passage order.
        passages: The flagged passages, as written.
    """

    chunk_id: str
    locator: str
    position: int
    flags: tuple[str, ...]
    passages: tuple[str, ...]


def flagged_chunks(
    es: Elasticsearch, tenant_id: str, *, index_prefix: str, limit: int = 100
) -> list[FlaggedChunk]:
    """The flagged chunks of ``tenant_id``'s index, by locator and position.

    Args:
        es: The process-wide client.
        tenant_id: The tenant (its index only: another tenant's chunks are never read).
        index_prefix: The fleet's index prefix (``CRAG_INDEX_PREFIX``).
        limit: Most chunks returned.

    Raises:
        IngestError: Elasticsearch failed (a tenant without an index has none flagged).
    """
    name = index_name(tenant_id, index_prefix)
    try:
        response = es.search(
            index=name,
            query={"exists": {"field": f"{METADATA_FIELD}.{FLAGS_FIELD}"}},
            sort=[{LOCATOR_FIELD: "asc"}, {f"{METADATA_FIELD}.position": "asc"}],
            size=limit,
            source_includes=[METADATA_FIELD],
        )
    except NotFoundError:
        return []
    except (ApiError, TransportError) as exc:
        raise IngestError(f"index {name}: cannot list flagged chunks: {exc}") from exc
    out = []
    for hit in response["hits"]["hits"]:
        meta = hit["_source"][METADATA_FIELD]
        out.append(
            FlaggedChunk(
                chunk_id=meta["id"],
                locator=meta["locator"],
                position=int(meta.get("position", 0)),
                flags=tuple(meta.get(FLAGS_FIELD, ())),
                passages=tuple(meta.get(FLAGGED_PASSAGES_FIELD, ())),
            )
        )
    return out
