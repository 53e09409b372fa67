"""The router's index-size check, remembered per process only while positive (real ES)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from corpus import TenantRetriever, index_name, ingest_paths
from workers.runtime.index_sizes import IndexSizes, SizedRetriever

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).parents[1] / "data" / "corpus"


def test_an_empty_index_is_asked_every_time_and_a_full_one_is_remembered(
    es: Any, settings: Any
) -> None:
    tenant = f"t-size-{uuid.uuid4().hex[:8]}"
    sizes = IndexSizes(ttl_s=60)
    retriever = SizedRetriever(
        TenantRetriever(es, tenant, index_prefix=settings.index_prefix), tenant, sizes
    )
    try:
        assert retriever.count() == 0  # no index yet
        report = ingest_paths(es, tenant, [CORPUS], index_prefix=settings.index_prefix)
        assert retriever.count() == report.chunks > 0  # the first question after an ingest
        es.indices.delete(index=index_name(tenant, settings.index_prefix))
        assert retriever.count() == report.chunks  # remembered for the TTL…
        sizes.ttl_s = 0
        assert retriever.count() == 0  # …and only for the TTL: asked again, now empty
        assert sizes.get(tenant) is None  # and an empty index is not remembered
    finally:
        es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)
