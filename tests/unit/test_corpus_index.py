"""Tenant index names, tenant-id validation and the index mapping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpus import IngestError, index_name, ingest_paths
from corpus.index import index_body, validate_tenant_id


@pytest.mark.parametrize("tenant", ["acme", "a", "0", "acme-corp_2", "a" * 63, "9lives"])
def test_valid_tenant_ids(tenant: str) -> None:
    assert validate_tenant_id(tenant) == tenant
    assert index_name(tenant) == f"crag-{tenant}"


@pytest.mark.parametrize(
    "tenant",
    ["", "Acme", "-acme", "_acme", "a" * 64, "acme\n", "ac me", "a.b", "a/b", "a*", "ü", "a,b"],
)
def test_invalid_tenant_ids_raise_naming_the_id(tenant: str) -> None:
    with pytest.raises(ValueError, match="invalid tenant id") as info:
        index_name(tenant)
    assert repr(tenant) in str(info.value)


def test_non_string_tenant_id_raises() -> None:
    with pytest.raises(ValueError, match="invalid tenant id 42"):
        validate_tenant_id(42)  # type: ignore[arg-type]


def test_custom_and_invalid_prefixes() -> None:
    assert index_name("acme", "test-crag-") == "test-crag-acme"
    assert index_name("acme", "") == "acme"
    for bad in ("Crag-", "_crag-", "-crag", "crag*", "crag /"):
        with pytest.raises(ValueError, match="invalid index prefix"):
            index_name("acme", bad)


def test_bm25_mapping_is_strict_with_keyword_provenance() -> None:
    body = index_body()
    mappings = body["mappings"]
    assert mappings["dynamic"] == "strict"
    props = mappings["properties"]
    assert props["text"] == {"type": "text", "analyzer": "english"}
    meta = props["metadata"]["properties"]
    for keyword in ("id", "tenant_id", "locator", "source_type"):
        assert meta[keyword] == {"type": "keyword"}
    assert meta["updated_at"] == {"type": "date"}
    assert meta["position"] == {"type": "integer"}
    assert "vector" not in props
    assert body["settings"]["number_of_shards"] == 1


def test_vector_field_only_with_dims() -> None:
    vector = index_body(384)["mappings"]["properties"]["vector"]
    assert vector == {"type": "dense_vector", "dims": 384, "index": True, "similarity": "cosine"}


class NoCallsClient:
    """Fails the test if ingest touches Elasticsearch before validating its inputs."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"unexpected Elasticsearch call: {name}")


def test_ingest_validates_before_any_request(tmp_path: Path) -> None:
    es: Any = NoCallsClient()
    with pytest.raises(ValueError, match="invalid tenant id"):
        ingest_paths(es, "Bad Tenant", [tmp_path])
    with pytest.raises(ValueError, match="chunk_overlap"):
        ingest_paths(es, "acme", [tmp_path], chunk_size=100, chunk_overlap=200)
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(IngestError, match=r"photo\.jpg: unsupported"):
        ingest_paths(es, "acme", [tmp_path / "photo.jpg"])
