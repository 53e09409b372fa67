"""Search one tenant's index: the :class:`pipeline.deps.Retriever` the graph is given.

This uses the raw Elasticsearch client with an explicit query rather than
``ElasticsearchStore.similarity_search``: the tenant filter is then one visible clause of
one request, hits map straight onto :class:`Document` (no LangChain ``Document`` reshaping),
and every failure is caught in one place and turned into :class:`RetrievalError`.
"""

from __future__ import annotations

from typing import Any

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError

from corpus.index import (
    DEFAULT_INDEX_PREFIX,
    METADATA_FIELD,
    TENANT_FIELD,
    TEXT_FIELD,
    index_name,
)
from pipeline.deps import RetrievalError
from pipeline.documents import Document


class TenantRetriever:
    """BM25 search over one tenant's index, always filtered to that tenant's chunks.

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
    ) -> None:
        """Bind the retriever to ``tenant_id``'s index; makes no request.

        Args:
            es: The process-wide client (:func:`corpus.client.make_es_client`).
            tenant_id: The tenant to search.
            index_prefix: Index name prefix (settings ``index_prefix``).

        Raises:
            ValueError: Invalid tenant id or prefix.
        """
        self.index = index_name(tenant_id, index_prefix)
        self.tenant_id = tenant_id
        self._es = es
        self._tenant_filter = {"term": {TENANT_FIELD: tenant_id}}

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
        """Return up to ``k`` of the tenant's chunks for ``query``, best BM25 score first.

        Args:
            query: Free text; analysed with the index's ``english`` analyzer.
            k: Maximum number of chunks (>= 1).

        Returns:
            Documents with every provenance field, ``position`` and ``score`` set.

        Raises:
            ValueError: ``query`` is empty or whitespace, or ``k`` < 1.
            RetrievalError: Elasticsearch could not be reached, the index does not
                exist, the request was refused, or a hit belongs to another tenant.
        """
        if not query or not query.strip():
            raise ValueError("search query is empty")
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        try:
            response = self._es.search(
                index=self.index,
                query={
                    "bool": {
                        "must": [{"match": {TEXT_FIELD: query}}],
                        "filter": [self._tenant_filter],
                    }
                },
                size=k,
                source_includes=[TEXT_FIELD, METADATA_FIELD],  # never ship vectors back
                track_total_hits=False,
            )
        except (ApiError, TransportError) as exc:
            raise self._error("search", exc) from exc
        return [self._document(hit) for hit in response["hits"]["hits"]]

    def _document(self, hit: dict[str, Any]) -> Document:
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
