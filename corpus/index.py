"""The tenant index: its name, its mapping, and creating it.

Each tenant has one index, ``index_prefix + tenant_id``. Documents are laid out the way
``langchain_elasticsearch.ElasticsearchStore`` writes them::

    {"text": "<chunk text>",
     "metadata": {"id", "tenant_id", "locator", "source_type", "title",
                  "updated_at", "position",
                  "flags", "flagged_passages"},   # only on a chunk with a callout
     "vector": [...]}          # only when the index was created with embeddings

The mapping is explicit and ``strict``, so a misspelt or unexpected field fails loudly at
write time instead of being guessed by dynamic mapping.
"""

from __future__ import annotations

import re
from typing import Any

from elasticsearch import ApiError, BadRequestError, Elasticsearch, TransportError

from corpus.errors import IngestError

TEXT_FIELD = "text"
METADATA_FIELD = "metadata"
VECTOR_FIELD = "vector"
ID_FIELD = f"{METADATA_FIELD}.id"
TENANT_FIELD = f"{METADATA_FIELD}.tenant_id"
LOCATOR_FIELD = f"{METADATA_FIELD}.locator"
FLAGS_FIELD = "flags"
"""Metadata key: why each callout of the chunk was flagged (:mod:`pipeline.callouts`)."""
FLAGGED_PASSAGES_FIELD = "flagged_passages"
"""Metadata key: the flagged passages, as written (stored, not searched)."""
_FLAG_MAPPING: dict[str, Any] = {
    FLAGS_FIELD: {"type": "keyword"},
    FLAGGED_PASSAGES_FIELD: {"type": "text", "index": False},
}

DEFAULT_INDEX_PREFIX = "crag-"

_TENANT_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")
# Elasticsearch index names are lowercase and may not start with '-', '_' or '+'.
_INDEX_PREFIX = re.compile(r"([a-z0-9][a-z0-9._-]{0,127})?")


def validate_tenant_id(tenant_id: str) -> str:
    """Return ``tenant_id`` if it is a valid tenant id, else raise.

    A tenant id is 1-63 characters of ``[a-z0-9_-]`` starting with a letter or digit, so
    it is always safe inside an index name and a filter term.

    Raises:
        ValueError: The id does not match; the message names it.
    """
    if not isinstance(tenant_id, str) or not _TENANT_ID.fullmatch(tenant_id):
        raise ValueError(
            f"invalid tenant id {tenant_id!r}: expected 1-63 characters of lowercase "
            "letters, digits, '_' or '-', starting with a letter or digit"
        )
    return tenant_id


def index_name(tenant_id: str, index_prefix: str = DEFAULT_INDEX_PREFIX) -> str:
    """Return the tenant's index name, ``index_prefix + tenant_id``.

    Raises:
        ValueError: The tenant id or the prefix is not valid in an index name.
    """
    validate_tenant_id(tenant_id)
    if not _INDEX_PREFIX.fullmatch(index_prefix):
        raise ValueError(
            f"invalid index prefix {index_prefix!r}: expected lowercase letters, digits, "
            "'.', '_' or '-', not starting with '.', '_' or '-'"
        )
    return index_prefix + tenant_id


def index_body(dims: int | None = None) -> dict[str, Any]:
    """Return the ``settings`` and ``mappings`` of a tenant index.

    Args:
        dims: Embedding dimensions; ``None`` for a BM25-only index (no vector field).

    Returns:
        A dict with ``settings`` and ``mappings`` keys for ``indices.create``.
    """
    metadata: dict[str, Any] = {
        "id": {"type": "keyword"},
        "tenant_id": {"type": "keyword"},
        "locator": {"type": "keyword"},
        "source_type": {"type": "keyword"},
        "title": {"type": "text", "analyzer": "english"},
        "updated_at": {"type": "date"},
        "position": {"type": "integer"},
        **_FLAG_MAPPING,
    }
    properties: dict[str, Any] = {
        TEXT_FIELD: {"type": "text", "analyzer": "english"},
        METADATA_FIELD: {"properties": metadata},
    }
    if dims is not None:
        properties[VECTOR_FIELD] = {
            "type": "dense_vector",
            "dims": dims,
            "index": True,
            "similarity": "cosine",
        }
    return {
        "settings": {
            "number_of_shards": 1,
            # No replica on a single node (it would stay unassigned and the index yellow),
            # one as soon as a second node joins.
            "auto_expand_replicas": "0-1",
        },
        "mappings": {"dynamic": "strict", "properties": properties},
    }


def ensure_index(es: Elasticsearch, name: str, dims: int | None = None) -> None:
    """Create index ``name`` with :func:`index_body` unless it exists; check it fits.

    Safe to race: another process creating the same index first is not an error.

    Args:
        es: The process-wide client.
        name: The tenant index name (from :func:`index_name`).
        dims: Embedding dimensions to be written, or ``None`` for BM25 only.

    Raises:
        IngestError: Elasticsearch failed, or the existing index cannot hold vectors of
            ``dims`` dimensions (it was created without vectors, or with other dims).
    """
    try:
        if not es.indices.exists(index=name):
            try:
                es.indices.create(index=name, **index_body(dims))
                return
            except BadRequestError as exc:
                if exc.error != "resource_already_exists_exception":
                    raise
        # An index created before callouts were flagged gains the two fields (adding a
        # field to a mapping is allowed and idempotent).
        es.indices.put_mapping(
            index=name, properties={METADATA_FIELD: {"properties": _FLAG_MAPPING}}
        )
        if dims is not None:
            _check_vector_dims(es, name, dims)
    except (ApiError, TransportError) as exc:
        raise IngestError(f"index {name}: cannot create or inspect the index: {exc}") from exc


def vector_dims(es: Elasticsearch, name: str) -> int | None:
    """Dimensions of index ``name``'s vector field; ``None`` when it has none.

    Raises:
        elasticsearch.ApiError, elasticsearch.TransportError: The mapping could not be read.
    """
    mapping = es.indices.get_mapping(index=name)
    properties = mapping[name]["mappings"].get("properties", {})
    dims = properties.get(VECTOR_FIELD, {}).get("dims")
    return int(dims) if dims is not None else None


def _check_vector_dims(es: Elasticsearch, name: str, dims: int) -> None:
    existing = vector_dims(es, name)
    if existing != dims:
        found = "no vector field" if existing is None else f"{existing}-dimension vectors"
        raise IngestError(
            f"index {name}: has {found} but the embeddings give {dims} dimensions; "
            "re-create the index (delete it and ingest again) to change embeddings"
        )
