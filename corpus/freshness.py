"""Is a tenant's index still what ingesting its files now would make?

Chunking and loaders change between releases (chunk size, label handling); an index built
before keeps the old chunks until its files are ingested again, and nothing else notices.
:func:`stale_reason` re-chunks a few sample files and compares them with what the index
holds, by the stable chunk ids of :func:`pipeline.documents.chunk_id`;
:func:`ensure_indexed` ingests a corpus again when it is stale, empty, or lacks the vectors
its tenant's retrieval needs (``crag demo`` and ``crag eval`` keep their tenants with it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError
from langchain_core.embeddings import Embeddings

from corpus.chunking import chunk_source
from corpus.errors import IngestError
from corpus.index import TEXT_FIELD, index_name, vector_dims
from corpus.ingest import IngestReport, Progress, ingest_paths
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


def ensure_indexed(
    es: Elasticsearch,
    tenant: str,
    files: list[Path],
    *,
    index_prefix: str,
    reingest: bool = False,
    embeddings: Embeddings | None = None,
    say: Callable[[str], None] = print,
    progress: Progress | None = None,
) -> IngestReport | None:
    """Ingest ``files`` into ``tenant``'s index unless it already holds them as ingestion would.

    The index is ingested again when it is empty, when asked, when :func:`stale_reason`
    finds a mismatch, or when ``embeddings`` are given and the index holds no vectors of
    their dimensions (it was built for BM25 only, or with another model): that index is
    deleted first, since a vector field cannot be added to chunks already written.

    Args:
        es: Elasticsearch client.
        tenant: The tenant whose index is kept.
        files: The corpus's files, as the caller selects them.
        index_prefix: Settings ``index_prefix``.
        reingest: Ingest even if the index looks current.
        embeddings: Give every chunk a vector (a hybrid tenant); ``None``: BM25 only.
        say: Where progress lines go.
        progress: Passed to :func:`corpus.ingest_paths` (a progress bar's callback).

    Returns:
        The ingest report, or ``None`` when the index was current.

    Raises:
        corpus.IngestError: Elasticsearch refused a read or a write.
    """
    name = index_name(tenant, index_prefix)
    try:
        exists = bool(es.indices.exists(index=name))
        stored = es.count(index=name)["count"] if exists else 0
        dims = vector_dims(es, name) if exists else None
    except NotFoundError:
        exists, stored, dims = False, 0, None
    except (ApiError, TransportError) as exc:
        raise IngestError(f"index {name}: cannot inspect the index: {exc}") from exc
    wanted = len(embeddings.embed_query("dimension probe")) if embeddings is not None else None
    if exists and wanted is not None and dims != wanted:
        held = "no vectors" if dims is None else f"{dims}-dimension vectors"
        say(f"re-creating index {name}: it holds {held}, hybrid retrieval needs {wanted}")
        try:
            es.indices.delete(index=name)
        except (ApiError, TransportError) as exc:
            raise IngestError(f"index {name}: cannot delete it: {exc}") from exc
        stored = 0
    if stored:
        why = "asked to" if reingest else stale_reason(es, tenant, files, index_prefix=index_prefix)
        if why is None:
            return None
        say(f"re-ingesting tenant {tenant!r}: {why}")
    cost = " (embedding every chunk: minutes on a CPU)" if embeddings is not None else ""
    say(f"ingesting {len(files)} files into tenant {tenant!r}{cost} …")
    return ingest_paths(
        es, tenant, files, index_prefix=index_prefix, embeddings=embeddings, progress=progress
    )
