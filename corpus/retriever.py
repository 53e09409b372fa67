"""Search one tenant's index: the :class:`pipeline.deps.Retriever` the graph is given.

This uses the raw Elasticsearch client with an explicit query rather than
``ElasticsearchStore.similarity_search``: the tenant filter is then one visible clause of
one request, hits map straight onto :class:`Document` (no LangChain ``Document`` reshaping),
and every failure is caught in one place and turned into :class:`RetrievalError`.
"""

from __future__ import annotations

from typing import Any

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError
from langchain_core.embeddings import Embeddings

from corpus.compound import question_parts
from corpus.index import (
    DEFAULT_INDEX_PREFIX,
    METADATA_FIELD,
    TENANT_FIELD,
    TEXT_FIELD,
    VECTOR_FIELD,
    index_name,
)
from pipeline.deps import RetrievalError
from pipeline.documents import Document

RRF_K = 60
"""Reciprocal rank fusion constant (Cormack, Clarke & Büttcher, SIGIR 2009: k = 60)."""

HYBRID_DEPTH = 20
"""Hits taken from each of BM25 and kNN before fusing (at least ``k``)."""


def reciprocal_rank_fusion(rankings: list[list[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Fuse ranked id lists: ``score(d) = sum over lists of 1 / (k + rank of d)``, rank from 1.

    Returns:
        ``(id, score)`` best first; ties keep the order in which ids were first met.
    """
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


class TenantRetriever:
    """BM25 (or hybrid) search over one tenant's index, always filtered to its chunks.

    Hybrid (when ``embeddings`` is given): the BM25 and the kNN (cosine over the chunks'
    ``vector``) rankings of the query, :data:`HYBRID_DEPTH` deep each, fused by
    :func:`reciprocal_rank_fusion` here (the Elasticsearch distribution run locally has no
    ``rrf`` retriever). Chunks ingested without vectors are found by BM25 only.

    With ``split_compound``, compound questions ("which format …, and which option …?",
    :mod:`corpus.compound`) are searched part by part, and the parts' rankings fused the
    same way, so a fact on a second page is not crowded out by the page matching more of
    the whole sentence.

    The index is per tenant already; the ``tenant_id`` term filter is defence in depth
    against a chunk written under the wrong tenant or a mis-set prefix, and a hit that
    still names another tenant raises instead of being returned.

    Attributes:
        tenant_id: The tenant searched.
        index: Its index name.
    """

    def __init__(
        self,
        es: Elasticsearch,
        tenant_id: str,
        *,
        index_prefix: str = DEFAULT_INDEX_PREFIX,
        embeddings: Embeddings | None = None,
        split_compound: bool = False,
    ) -> None:
        """Bind the retriever to ``tenant_id``'s index; makes no request.

        Args:
            es: The process-wide client (:func:`corpus.client.make_es_client`).
            tenant_id: The tenant to search.
            index_prefix: Index name prefix (settings ``index_prefix``).
            embeddings: The model the index's vectors were made with: hybrid search.
                ``None``: BM25 only.
            split_compound: Search a compound question part by part
                (:mod:`corpus.compound`; settings ``multi_hop``).

        Raises:
            ValueError: Invalid tenant id or prefix.
        """
        self.index = index_name(tenant_id, index_prefix)
        self.tenant_id = tenant_id
        self._es = es
        self._tenant_filter = {"term": {TENANT_FIELD: tenant_id}}
        self._embeddings = embeddings
        self.mode = "hybrid" if embeddings is not None else "bm25"
        self._split = split_compound

    def count(self) -> int:
        """Return the number of the tenant's chunks in its index (0 if there is no index).

        Raises:
            RetrievalError: Elasticsearch could not be reached or refused the request.
        """
        try:
            response = self._es.count(index=self.index, query=self._tenant_filter)
        except NotFoundError as exc:
            if exc.error == "index_not_found_exception":
                return 0
            raise self._error("count", exc) from exc
        except (ApiError, TransportError) as exc:
            raise self._error("count", exc) from exc
        return int(response["count"])

    def search(self, query: str, k: int) -> list[Document]:
        """Return up to ``k`` of the tenant's chunks for ``query``, best first.

        Args:
            query: Free text; analysed with the index's ``english`` analyzer (and embedded,
                in hybrid mode).
            k: Maximum number of chunks (>= 1).

        Returns:
            Documents with every provenance field, ``position`` and ``score`` set (the BM25
            score of a one-part query; otherwise, and in hybrid mode, the fused RRF score).

        Raises:
            ValueError: ``query`` is empty or whitespace, or ``k`` < 1.
            RetrievalError: Elasticsearch could not be reached, the index does not
                exist, the request was refused, a hit belongs to another tenant, or the
                query could not be embedded.
        """
        if not query or not query.strip():
            raise ValueError("search query is empty")
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        parts = question_parts(query) if self._split else [query]
        if self._embeddings is None and len(parts) == 1:
            return [self.document(hit) for hit in self._bm25(query, k)]
        depth = k if self._embeddings is None else max(k, HYBRID_DEPTH)
        rankings = [ranking for part in parts for ranking in self._rankings(part, depth)]
        hits = {hit["_id"]: hit for ranking in rankings for hit in ranking}
        fused = reciprocal_rank_fusion([[hit["_id"] for hit in r] for r in rankings])
        return [self.document({**hits[doc_id], "_score": score}) for doc_id, score in fused[:k]]

    def _rankings(self, query: str, depth: int) -> list[list[dict[str, Any]]]:
        """The BM25 ranking of ``query`` and, in hybrid mode, its kNN ranking, ``depth`` deep."""
        lexical = self._bm25(query, depth)
        if self._embeddings is None:
            return [lexical]
        try:
            vector = self._embeddings.embed_query(query)
        except Exception as exc:  # the model is ours, but a remote one can fail any way
            raise RetrievalError(
                f"tenant {self.tenant_id!r}: embedding the query failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return [lexical, self._knn(vector, depth)]

    def _bm25(self, query: str, size: int) -> list[dict[str, Any]]:
        return self._search(
            "search",
            query={
                "bool": {
                    "must": [{"match": {TEXT_FIELD: query}}],
                    "filter": [self._tenant_filter],
                }
            },
            size=size,
        )

    def _knn(self, vector: list[float], size: int) -> list[dict[str, Any]]:
        return self._search(
            "vector search",
            knn={
                "field": VECTOR_FIELD,
                "query_vector": vector,
                "k": size,
                "num_candidates": max(100, 4 * size),
                "filter": self._tenant_filter,
            },
            size=size,
        )

    def _search(self, what: str, **request: Any) -> list[dict[str, Any]]:
        try:
            response = self._es.search(
                index=self.index,
                source_includes=[TEXT_FIELD, METADATA_FIELD],  # never ship vectors back
                track_total_hits=False,
                **request,
            )
        except (ApiError, TransportError) as exc:
            raise self._error(what, exc) from exc
        return list(response["hits"]["hits"])

    def document(self, hit: dict[str, Any]) -> Document:
        """One raw Elasticsearch hit of this tenant's index as a :class:`Document`.

        Args:
            hit: A hit with ``_source`` (``text`` and ``metadata``) and ``_score``.

        Raises:
            RetrievalError: A field is missing or malformed, or the hit names another tenant.
        """
        try:
            source = hit["_source"]
            meta = source[METADATA_FIELD]
            doc = Document(
                id=meta["id"],
                text=source[TEXT_FIELD],
                source_type=meta["source_type"],
                locator=meta["locator"],
                title=meta["title"],
                updated_at=meta["updated_at"],
                tenant_id=meta["tenant_id"],
                position=int(meta["position"]),
                score=float(hit["_score"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RetrievalError(
                f"tenant {self.tenant_id!r}: index {self.index}: malformed hit "
                f"{hit.get('_id')!r} (missing or bad field {exc})"
            ) from exc
        if doc["tenant_id"] != self.tenant_id:
            raise RetrievalError(
                f"tenant {self.tenant_id!r}: index {self.index}: hit {doc['id']!r} belongs "
                f"to tenant {doc['tenant_id']!r}; refusing to return it"
            )
        return doc

    def _error(self, what: str, exc: Exception) -> RetrievalError:
        return RetrievalError(
            f"tenant {self.tenant_id!r}: {what} on index {self.index} failed: "
            f"{type(exc).__name__}: {exc}"
        )
