"""The gold-context arm's retrieval (:mod:`evaluation.gold`) on the real Elasticsearch.

A page long enough to be several chunks: the chunk BM25 ranks first for the question
restates the question and holds no answer; a later chunk of the same page holds both
keyword groups; a third holds one. Another page answers a multi-hop item's second part.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from corpus import TenantRetriever
from evaluation.dataset import EvalItem
from evaluation.gold import GoldRetriever, gold_chunks
from tests.integration.conftest import indexed_tenant
from workers.settings import Settings

pytestmark = pytest.mark.integration

FILLER = " ".join(["The checkpointer writes pages to disk in the background."] * 10)
DOCS = {
    "checkpoints.md": (
        "# Checkpoints\n\nHow often does the server run a checkpoint, and how long may a "
        f"checkpoint take? Checkpoints run often. {FILLER}\n\n"
        f"## Timing\n\nThe checkpoint_timeout default is 5min. {FILLER}\n\n"
        f"## Spreading\n\nThe checkpoint_completion_target default is 0.9. {FILLER}\n\n"
        f"## Both\n\nBy default a checkpoint runs every 5min and is spread over 0.9 of it. "
        f"{FILLER}\n"
    ),
    "wal.md": "# WAL\n\nThe max_wal_size default is 1GB; reaching it starts a checkpoint.\n",
    "other.md": "# Other\n\nHow often does the server run a checkpoint? See the manual.\n",
}
QUESTION = "How often does the server run a checkpoint, and how long may a checkpoint take?"


def item(**fields: Any) -> EvalItem:
    return EvalItem(
        **{
            "id": "pg-950",
            "corpus": "pgdocs",
            "split": "dev",
            "kind": "answerable",
            "question": QUESTION,
            "answer_keywords": [["5min"], ["0.9"]],
            "pages": ["checkpoints.md"],
            "reference_answer": "every 5min, spread over 0.9 of it",
            "absent_terms": [],
            "expected_route": "vectorstore",
        }
        | fields
    )


@pytest.fixture(scope="module")
def retriever(es: Any, settings: Settings, tmp_path_factory: Any) -> Iterator[TenantRetriever]:
    root = tmp_path_factory.mktemp("gold-corpus")
    with indexed_tenant(es, settings, root, DOCS, "t-gold") as (tenant, report):
        assert report.ok and report.chunks > len(DOCS)  # the first page is several chunks
        yield TenantRetriever(es, tenant, index_prefix=settings.index_prefix)


def test_the_gold_chunk_holds_the_most_keyword_groups_not_the_best_bm25_score(
    es: Any, retriever: TenantRetriever
) -> None:
    top = retriever.search(QUESTION, 1)[0]
    assert "5min" not in top["text"] and "0.9" not in top["text"]  # BM25's first: no answer
    gold = gold_chunks(es, retriever, item())
    assert len(gold) == 1
    assert gold[0]["locator"].endswith("/checkpoints.md")
    assert "every 5min and is spread over 0.9" in gold[0]["text"]


def test_a_multi_hop_item_gets_one_gold_chunk_per_page_best_first(
    es: Any, retriever: TenantRetriever
) -> None:
    multi = item(
        kind="multi_hop",
        answer_keywords=[["5min"], ["0.9"], ["1GB"]],
        pages=["checkpoints.md", "wal.md"],
    )
    gold = gold_chunks(es, retriever, multi)
    assert [d["locator"].rsplit("/", 1)[-1] for d in gold] == ["checkpoints.md", "wal.md"]
    assert "every 5min" in gold[0]["text"] and "1GB" in gold[1]["text"]


def test_a_page_without_a_keyword_and_an_unanswerable_item_give_no_gold_chunk(
    es: Any, retriever: TenantRetriever
) -> None:
    assert gold_chunks(es, retriever, item(pages=["other.md"])) == []
    unanswerable = item(kind="unanswerable", answer_keywords=[], pages=[], absent_terms=["server"])
    assert gold_chunks(es, retriever, unanswerable) == []


def test_the_retriever_puts_the_gold_chunk_first_then_the_tenants_results_once_each(
    es: Any, retriever: TenantRetriever
) -> None:
    gold = gold_chunks(es, retriever, item())
    plain = retriever.search(QUESTION, 3)
    shown = GoldRetriever(retriever, gold).search(QUESTION, 3)
    assert shown[0]["id"] == gold[0]["id"]
    assert [d["id"] for d in shown[1:]] == [d["id"] for d in plain if d["id"] != gold[0]["id"]][:2]
    assert len({d["id"] for d in shown}) == 3
    assert GoldRetriever(retriever, gold).count() == retriever.count()
