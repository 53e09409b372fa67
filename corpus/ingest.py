"""Ingest files into a tenant's index: load, chunk, replace each file's chunks, refresh.

Writes go through ``langchain_elasticsearch.ElasticsearchStore`` with the stable chunk ids,
so re-ingesting a file overwrites its chunks in place. Chunks stored under the file's
locator whose ids the new version no longer produces (it got shorter) are then deleted by
id, so no stale chunk survives.

Why not ``delete_by_query`` on the locator before writing: the local Elasticsearch that
``infra/up`` runs (the integ-test distribution) has no ``reindex`` module and so no
``_delete_by_query`` endpoint; and replace-then-prune never leaves a file with no chunks,
nor loses a file's chunks when the write after the delete fails.

Files are handled in batches: per batch one paged id lookup, one bulk write and, when
needed, one bulk delete. The index is refreshed once at the end.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from elasticsearch import ApiError, Elasticsearch, TransportError
from elasticsearch.helpers import BulkIndexError
from langchain_core.embeddings import Embeddings
from langchain_elasticsearch import BM25Strategy, DenseVectorStrategy, ElasticsearchStore

from corpus.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, chunk_source, make_splitter
from corpus.errors import IngestError
from corpus.index import (
    DEFAULT_INDEX_PREFIX,
    FLAGGED_PASSAGES_FIELD,
    FLAGS_FIELD,
    ID_FIELD,
    LOCATOR_FIELD,
    TEXT_FIELD,
    VECTOR_FIELD,
    ensure_index,
    index_name,
)
from corpus.loaders import collect_files, load_file
from pipeline.callouts import find_callouts
from pipeline.documents import Document

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

DEFAULT_BATCH_CHUNKS = 1000
"""Chunks per write batch (about 1 MB of text at the default chunk size)."""

DEFAULT_WRITE_TIMEOUT_S = 120.0
"""Request timeout for bulk writes and deletes, seconds (searches keep the client's)."""

_ID_PAGE = 5000  # ids per lookup page; below the default 10,000 result window


@dataclass
class IngestReport:
    """What one :func:`ingest_paths` call did.

    Attributes:
        index: The tenant index written to.
        files: Files ingested (their old chunks replaced by new ones).
        chunks: Chunks written.
        skipped: Unsupported files met while walking directories (absolute paths).
        errors: Files that could not be read, path -> reason; their stored chunks, if
            any, are left as they were.
        elapsed_s: Wall time of the whole call, seconds.
        embedded: Chunks given a dense vector (0 for BM25 only).
        embed_s: Of ``elapsed_s``, the time spent embedding, seconds.
    """

    index: str
    files: int = 0
    chunks: int = 0
    skipped: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    elapsed_s: float = 0.0
    embedded: int = 0
    embed_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every file found was ingested."""
        return not self.errors

    def describe(self) -> str:
        """Describe the ingest for people.

        Returns:
            One line (files, chunks, skipped, errors, embedding rate), then each error and
            up to 20 skipped files on lines of their own.
        """
        line = (
            f"{self.files} files, {self.chunks} chunks into {self.index} in "
            f"{self.elapsed_s:.1f}s; {len(self.skipped)} unsupported skipped; "
            f"{len(self.errors)} errors"
        )
        if self.embedded:
            line += (
                f"; embedded {self.embedded} chunks in {self.embed_s:.1f}s "
                f"({self.embedded / max(self.embed_s, 1e-9):.1f} chunks/s)"
            )
        skipped = [f"  skipped (unsupported type): {path}" for path in self.skipped[:20]]
        if len(self.skipped) > 20:
            skipped.append(f"  … and {len(self.skipped) - 20} more unsupported files")
        return "\n".join([line, *(f"  error: {why}" for why in self.errors.values()), *skipped])


Progress = Callable[[int, int, int], None]
"""Called as ``progress(files_done, files_total, chunks_written)`` while ingesting."""

EMBEDDING_BATCH_CHUNKS = 64
"""Chunks per write batch when embedding (~8 s of MiniLM on 2 cores): progress stays live."""


class _TimedEmbeddings(Embeddings):
    """Counts the texts a wrapped model embeds and the seconds it takes."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner, self.texts, self.seconds = inner, 0, 0.0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        started = time.perf_counter()
        vectors = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def ingest_paths(
    es: Elasticsearch,
    tenant_id: str,
    paths: Iterable[str | Path],
    *,
    index_prefix: str = DEFAULT_INDEX_PREFIX,
    embeddings: Embeddings | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    batch_chunks: int | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Ingest files and directories into the tenant's index and make them searchable.

    Creates the index if needed. Each file's chunks replace whatever was stored for its
    locator. A file that cannot be read is recorded in the report and the rest go on;
    anything Elasticsearch refuses stops the run.

    Args:
        es: The process-wide client (:func:`corpus.client.make_es_client`).
        tenant_id: Owner of the index and of every chunk written.
        paths: Files (``.html``, ``.htm``, ``.md``, ``.txt``, ``.pdf``) and directories,
            walked recursively.
        index_prefix: Index name prefix (settings ``index_prefix``).
        embeddings: When given, chunks also get dense vectors (the index must have been
            created with the same dimensions, or not exist yet); ``None`` for BM25 only.
        chunk_size: Maximum chunk length, characters.
        chunk_overlap: Overlap between neighbouring chunks, characters.
        batch_chunks: Chunks per batch (lookup, bulk write, bulk delete); default
            :data:`DEFAULT_BATCH_CHUNKS`, or :data:`EMBEDDING_BATCH_CHUNKS` when embedding.
        progress: Told after each batch written and each file read (see :data:`Progress`).

    Returns:
        The counts, skipped files, per-file errors and elapsed time.

    Raises:
        ValueError: Invalid tenant id, prefix or chunk sizes.
        IngestError: A named path is missing or unsupported, or Elasticsearch failed
            (the message names the index). Batches written before the failure stay
            written and become searchable at the next refresh.

    Errors raised by ``embeddings`` (e.g. an unreachable endpoint) propagate unchanged.
    """
    started = time.perf_counter()
    name = index_name(tenant_id, index_prefix)
    make_splitter("plain", chunk_size, chunk_overlap)  # fail on bad sizes before any I/O
    collected = collect_files(paths)
    report = IngestReport(index=name, skipped=[str(p) for p in collected.skipped])

    timed = _TimedEmbeddings(embeddings) if embeddings is not None else None
    dims = len(timed.embed_query("dimension probe")) if timed else None
    ensure_index(es, name, dims)
    if batch_chunks is None:
        batch_chunks = DEFAULT_BATCH_CHUNKS if timed is None else EMBEDDING_BATCH_CHUNKS
    total = len(collected.files)

    def written(chunks: int) -> None:
        if progress is not None:
            progress(report.files + len(report.errors), total, chunks)

    writer = _BatchWriter(es, name, timed, dims, batch_chunks, written)
    for path in collected.files:
        try:
            source = load_file(path)
        except IngestError as exc:
            logger.warning("skipping %s", exc)
            report.errors[str(path)] = str(exc)
            continue
        docs = chunk_source(source, tenant_id, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
        writer.add(source.locator, docs)
        report.files += 1
        report.chunks += len(docs)
        written(writer.written)
    writer.flush()
    written(writer.written)
    if timed is not None:
        report.embedded, report.embed_s = timed.texts, timed.seconds
    _es_call(name, "refresh", lambda: es.indices.refresh(index=name))

    report.elapsed_s = time.perf_counter() - started
    logger.info(
        "ingested %d files, %d chunks into %s in %.1f s (%d skipped, %d errors)",
        report.files, report.chunks, name, report.elapsed_s,
        len(report.skipped), len(report.errors),
    )  # fmt: skip
    return report


class _BatchWriter:
    """Buffers whole files' chunks; each flush writes them and prunes the files' stale ones."""

    def __init__(
        self,
        es: Elasticsearch,
        name: str,
        embeddings: Embeddings | None,
        dims: int | None,
        batch_chunks: int,
        on_write: Callable[[int], None],
    ) -> None:
        self._es = es.options(request_timeout=DEFAULT_WRITE_TIMEOUT_S)
        self._name = name
        self._batch_chunks = max(1, batch_chunks)
        self._locators: list[str] = []
        self._docs: list[Document] = []
        self._on_write = on_write
        self.written = 0
        """Chunks written so far."""
        self._store = ElasticsearchStore(
            index_name=name,
            client=self._es,
            embedding=embeddings,
            strategy=(
                BM25Strategy()
                if embeddings is None
                else DenseVectorStrategy(hybrid=True, text_field=TEXT_FIELD)
            ),
            query_field=TEXT_FIELD,
            vector_query_field=VECTOR_FIELD,
            num_dimensions=dims,
        )

    def add(self, locator: str, docs: list[Document]) -> None:
        # A file's chunks are never split across batches, so the stale-id diff for a file
        # always sees all of its new ids.
        self._locators.append(locator)
        self._docs.extend(docs)
        if len(self._docs) >= self._batch_chunks:
            self.flush()

    def flush(self) -> None:
        if not self._locators:
            return
        locators, docs = self._locators, self._docs
        self._locators, self._docs = [], []
        stored = _es_call(self._name, "look up stored chunks", lambda: self._stored_ids(locators))
        if docs:
            _es_call(
                self._name,
                "bulk write",
                lambda: self._store.add_texts(
                    [doc["text"] for doc in docs],
                    metadatas=[_metadata(doc) for doc in docs],
                    ids=[doc["id"] for doc in docs],
                    refresh_indices=False,
                    create_index_if_not_exists=False,
                    bulk_kwargs={"chunk_size": len(docs)},
                ),
            )
        self.written += len(docs)
        self._on_write(self.written)
        stale = sorted(stored - {doc["id"] for doc in docs})
        if stale:
            _es_call(
                self._name,
                "delete stale chunks",
                lambda: self._store.delete(ids=stale, refresh_indices=False),
            )

    def _stored_ids(self, locators: list[str]) -> set[str]:
        """Return the ids of every chunk stored under ``locators``, whatever its tenant."""
        ids: set[str] = set()
        after: list[Any] | None = None
        while True:
            response = self._es.search(
                index=self._name,
                query={"terms": {LOCATOR_FIELD: locators}},
                sort=[{ID_FIELD: "asc"}],  # _id itself is not sortable by default
                search_after=after,
                size=_ID_PAGE,
                source=False,
                track_total_hits=False,
            )
            hits = response["hits"]["hits"]
            ids.update(hit["_id"] for hit in hits)
            if len(hits) < _ID_PAGE:
                return ids
            after = hits[-1]["sort"]


def _metadata(doc: Document) -> dict[str, Any]:
    """The chunk's metadata, with its callouts flagged for review (:mod:`pipeline.callouts`)."""
    meta = {key: value for key, value in doc.items() if key not in ("text", "score")}
    callouts = find_callouts(doc["text"])
    if callouts:
        meta[FLAGS_FIELD] = [c.why for c in callouts]
        meta[FLAGGED_PASSAGES_FIELD] = [c.passage for c in callouts]
    return meta


def _es_call(name: str, what: str, call: Callable[[], _T]) -> _T:
    try:
        return call()
    except BulkIndexError as exc:
        first = exc.errors[0] if exc.errors else {}
        raise IngestError(
            f"index {name}: {what}: {len(exc.errors)} chunk(s) rejected, first: {first}"
        ) from exc
    except (ApiError, TransportError) as exc:
        raise IngestError(f"index {name}: {what} failed: {exc}") from exc
