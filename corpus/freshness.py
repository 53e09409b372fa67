"""Is a tenant's index still what ingesting its files now would make?

Chunking and loaders change between releases (chunk size, label handling); an index built
before keeps the old chunks until its files are ingested again, and nothing else notices.
:func:`stale_reason` re-chunks a few sample files and compares them with what the index
holds, by the stable chunk ids of :func:`pipeline.documents.chunk_id`.
"""

from __future__ import annotations

from pathlib import Path

from elasticsearch import ApiError, Elasticsearch, TransportError

from corpus.chunking import chunk_source
from corpus.errors import IngestError
from corpus.index import TEXT_FIELD, index_name
from corpus.loaders import load_file
from pipeline.documents import chunk_id


def stale_reason(
    es: Elasticsearch, tenant: str, files: list[Path], *, index_prefix: str, samples: int = 5
) -> str | None:
    """Why ``tenant``'s index no longer matches ``files`` as ingestion would chunk them now.

    Checks ``samples`` files spread over the list: each chunk's stored text must be what
    chunking the file gives now, and no chunk may be stored past the last one.

    Returns:
        The first mismatch, or ``None`` when the samples match.

    Raises:
        corpus.IngestError: Elasticsearch could not be read.
    """
    name = index_name(tenant, index_prefix)
    for path in files[:: max(1, len(files) // samples)][:samples]:
        try:
            source = load_file(path)
        except IngestError:
            continue  # an unreadable file is not indexed either
        texts = [doc["text"] for doc in chunk_source(source, tenant)]
        ids = [chunk_id(source.locator, n) for n in range(len(texts) + 1)]
        try:
            found = es.mget(index=name, ids=ids, source_includes=[TEXT_FIELD])["docs"]
        except (ApiError, TransportError) as exc:
            raise IngestError(f"index {name}: cannot read stored chunks: {exc}") from exc
        stored = [doc["_source"][TEXT_FIELD] if doc.get("found") else None for doc in found]
        if stored != [*texts, None]:
            held = sum(text is not None for text in stored)
            return (
                f"{source.locator} is stored as {held} chunks that differ from the "
                f"{len(texts)} ingesting it now makes"
            )
    return None
