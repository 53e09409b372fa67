"""The tenant corpus: ingest files into a tenant's Elasticsearch index and search it.

Public API:
    ingest_paths(es, tenant_id, paths, *, index_prefix, embeddings, chunk_size,
        chunk_overlap) -> IngestReport: load, chunk and (re)write files; refreshes once.
    TenantRetriever(es, tenant_id, *, index_prefix): the graph's ``Retriever``.
    make_es_client(url) -> Elasticsearch: one per process.
    make_embeddings(kind, base_url, model) -> Embeddings | None.
    index_name(tenant_id, index_prefix) -> str.
    IngestError: a file or the index write failed; the message names which.
"""

from corpus.client import make_es_client
from corpus.embeddings import make_embeddings
from corpus.errors import IngestError
from corpus.index import index_name, validate_tenant_id
from corpus.ingest import IngestReport, ingest_paths
from corpus.retriever import TenantRetriever

__all__ = [
    "IngestError",
    "IngestReport",
    "TenantRetriever",
    "index_name",
    "ingest_paths",
    "make_embeddings",
    "make_es_client",
    "validate_tenant_id",
]
