"""Compound questions on the real Elasticsearch: each part is searched, the rankings fused.

A small corpus where three lock pages share most words of the question's first part, while
the page that answers its second part shares few words with the whole sentence: one BM25
query for the sentence ranks two lock pages first and leaves that page out of the top 2;
the part-by-part search gives each part its best page.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from corpus import TenantRetriever
from corpus.compound import question_parts
from tests.integration.conftest import indexed_tenant
from workers.settings import Settings

pytestmark = pytest.mark.integration

DOCS = {
    "locks.md": "# Lock waits\n\nThe server waits on a lock for one second before checking "
    "for a deadlock.",
    "lock-modes.md": "# Lock modes\n\nHow long the server waits on a lock before checking "
    "depends on the lock mode.",
    "lock-monitoring.md": "# Monitoring locks\n\nHow long a server waits on a lock before "
    "checking is shown per backend.",
    "error-codes.md": "# Error codes\n\nThe deadlock error carries code 40P01.",
    "build.md": "# Build\n\nA build error prints its code and stops.",
    "install.md": "# Install\n\nAn install error prints an exit code.",
    "backup.md": "# Backup\n\nA backup error returns code 1.",
}
QUESTION = (
    "How long does the server wait on a lock before checking for a deadlock, "
    "and which code does the error carry?"
)


@pytest.fixture(scope="module")
def tenant(es: Any, settings: Settings, tmp_path_factory: Any) -> Iterator[str]:
    root = tmp_path_factory.mktemp("compound-corpus")
    with indexed_tenant(es, settings, root, DOCS, "t-cq") as (tenant, report):
        assert report.ok and report.chunks == len(DOCS)
        yield tenant


def _pages(retriever: TenantRetriever, query: str, k: int) -> list[str]:
    return [d["locator"].rsplit("/", 1)[-1] for d in retriever.search(query, k)]


def test_each_part_of_a_compound_question_gets_its_page(
    es: Any, settings: Settings, tenant: str
) -> None:
    retriever = TenantRetriever(es, tenant, index_prefix=settings.index_prefix, split_compound=True)
    # The whole sentence, searched as one query (what search did before), misses the page
    # that answers its second part: the lock pages match more of its words.
    one_query = es.search(
        index=retriever.index,
        query={"match": {"text": QUESTION}},
        size=2,
    )["hits"]["hits"]
    assert not any(
        h["_source"]["metadata"]["locator"].endswith("error-codes.md") for h in one_query
    )

    first, second = question_parts(QUESTION)
    pages = _pages(retriever, QUESTION, 2)
    assert pages == [_pages(retriever, first, 1)[0], "error-codes.md"]
    assert _pages(retriever, second, 1) == ["error-codes.md"]
    docs = retriever.search(QUESTION, 2)
    assert all(0 < d["score"] < 1 for d in docs)  # fused (RRF) scores, best first
    assert docs[0]["score"] >= docs[1]["score"]
    # Off (the default, settings ``multi_hop``): searched whole, as one BM25 query.
    whole = TenantRetriever(es, tenant, index_prefix=settings.index_prefix)
    assert "error-codes.md" not in _pages(whole, QUESTION, 2)


def test_a_one_part_question_keeps_its_bm25_ranking(
    es: Any, settings: Settings, tenant: str
) -> None:
    retriever = TenantRetriever(es, tenant, index_prefix=settings.index_prefix, split_compound=True)
    docs = retriever.search("Which error code is raised for a detected deadlock?", 2)
    assert docs[0]["locator"].endswith("error-codes.md")
    assert docs[0]["score"] > 1  # a BM25 score, not a fused one
