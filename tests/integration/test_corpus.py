"""Ingest and retrieval against the real Elasticsearch that ``infra/up`` starts.

Every test uses its own tenant (uuid suffix) and deletes that tenant's index afterwards.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from langchain_core.embeddings import DeterministicFakeEmbedding

from corpus import IngestError, TenantRetriever, index_name, ingest_paths, make_es_client
from corpus.freshness import ensure_indexed
from corpus.index import vector_dims
from pipeline.deps import RetrievalError
from pipeline.documents import chunk_id
from tests.unit.test_corpus_loaders import make_pdf

pytestmark = pytest.mark.integration

NewTenant = Callable[[], str]


@pytest.fixture
def new_tenant(es: Elasticsearch) -> Iterator[NewTenant]:
    """Hands out fresh tenant ids; deletes their indexes when the test ends."""
    made: list[str] = []

    def make() -> str:
        made.append(f"test-{uuid.uuid4().hex[:12]}")
        return made[-1]

    yield make
    for tenant in made:
        es.options(ignore_status=404).indices.delete(index=index_name(tenant))


def paragraphs(topic: str, n: int) -> str:
    return "\n\n".join(
        f"Paragraph {i} about {topic}: this sentence pads the paragraph to a useful length "
        f"so that a small chunk size splits the file into several chunks."
        for i in range(n)
    )


def all_chunks(es: Elasticsearch, tenant: str) -> list[dict[str, object]]:
    response = es.search(index=index_name(tenant), size=1000, query={"match_all": {}})
    return [hit["_source"]["metadata"] for hit in response["hits"]["hits"]]


def test_ingest_then_search_finds_the_right_chunk_with_provenance(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    tenant = new_tenant()
    (tmp_path / "vacuum.md").write_text(
        "# Routine Vacuuming\n\nThe autovacuum daemon reclaims storage occupied by dead "
        "tuples and prevents transaction ID wraparound failures.\n"
    )
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "indexes.html").write_text(
        "<html><head><title>Indexes</title></head><body><h1>Indexes</h1>"
        "<p>A B-tree index speeds up equality and range lookups.</p></body></html>"
    )
    (tmp_path / "wal.pdf").write_bytes(
        make_pdf(["Write ahead logging guarantees durability"], title="WAL")
    )
    (tmp_path / "notes.txt").write_text("Replication slots retain segments.")
    (tmp_path / "diagram.png").write_bytes(b"\x89PNG")

    report = ingest_paths(es, tenant, [tmp_path])

    assert report.ok, report.errors
    assert (report.files, report.index) == (4, f"crag-{tenant}")
    assert report.skipped == [str((tmp_path / "diagram.png").resolve())]
    retriever = TenantRetriever(es, tenant)
    assert retriever.count() == report.chunks == 4  # searchable immediately: refreshed

    [best, *_] = retriever.search("how is wraparound prevented by autovacuum", 3)
    locator = str((tmp_path / "vacuum.md").resolve())
    assert best["locator"] == locator
    assert best["title"] == "Routine Vacuuming"
    assert best["tenant_id"] == tenant
    assert best["source_type"] == "index"
    assert best["position"] == 0
    assert best["id"] == chunk_id(locator, 0)
    assert best["updated_at"].endswith("Z")
    assert best["score"] > 0
    assert "autovacuum daemon" in best["text"]

    [pdf_hit] = retriever.search("durability guarantees", 1)
    assert (pdf_hit["title"], pdf_hit["locator"]) == ("WAL", str((tmp_path / "wal.pdf").resolve()))


def test_reingest_replaces_chunks_without_duplicates_or_stale_ones(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    tenant = new_tenant()
    path = tmp_path / "guide.md"
    path.write_text(paragraphs("checkpoints", 6) + "\n\nObsolete flamingo section.\n")
    first = ingest_paths(es, tenant, [path], chunk_size=200, chunk_overlap=0)
    retriever = TenantRetriever(es, tenant)
    assert first.chunks >= 6
    assert retriever.count() == first.chunks

    again = ingest_paths(es, tenant, [path], chunk_size=200, chunk_overlap=0)
    assert retriever.count() == again.chunks == first.chunks  # same ids, overwritten

    path.write_text(paragraphs("checkpoints", 2))
    shorter = ingest_paths(es, tenant, [path], chunk_size=200, chunk_overlap=0)
    assert 0 < shorter.chunks < first.chunks
    assert retriever.count() == shorter.chunks
    locator = str(path.resolve())
    stored = all_chunks(es, tenant)
    assert sorted(int(str(c["position"])) for c in stored) == list(range(shorter.chunks))
    assert {c["id"] for c in stored} == {chunk_id(locator, i) for i in range(shorter.chunks)}
    assert retriever.search("flamingo", 5) == []


def test_reingest_of_one_file_leaves_other_files_alone(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    tenant = new_tenant()
    (tmp_path / "a.txt").write_text("alpaca grazing notes")
    (tmp_path / "b.txt").write_text("badger burrow notes")
    ingest_paths(es, tenant, [tmp_path])
    (tmp_path / "a.txt").write_text("alpaca shearing notes")
    ingest_paths(es, tenant, [tmp_path / "a.txt"])
    retriever = TenantRetriever(es, tenant)
    assert retriever.count() == 2
    assert [d["text"] for d in retriever.search("badger", 5)] == ["badger burrow notes"]
    assert [d["text"] for d in retriever.search("alpaca", 5)] == ["alpaca shearing notes"]


def test_unreadable_files_are_reported_and_the_rest_ingested(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    tenant = new_tenant()
    (tmp_path / "good.txt").write_text("quokka habitat")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    report = ingest_paths(es, tenant, [tmp_path])
    assert not report.ok
    assert sorted(Path(p).name for p in report.errors) == ["broken.pdf", "empty.txt"]
    assert all(Path(p).name in msg for p, msg in report.errors.items())
    assert (report.files, report.chunks) == (1, 1)
    assert TenantRetriever(es, tenant).search("quokka", 5)[0]["text"] == "quokka habitat"


def test_two_tenants_never_see_each_others_chunks(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    acme, globex = new_tenant(), new_tenant()
    (tmp_path / "acme.txt").write_text("Acme secret: the zeppelin launch code is 1234.")
    (tmp_path / "globex.txt").write_text("Globex secret: the submarine dock is in bay 9.")
    ingest_paths(es, acme, [tmp_path / "acme.txt"])
    ingest_paths(es, globex, [tmp_path / "globex.txt"])
    acme_r, globex_r = TenantRetriever(es, acme), TenantRetriever(es, globex)

    assert acme_r.search("submarine dock", 5) == []
    assert globex_r.search("zeppelin launch code", 5) == []
    assert [d["tenant_id"] for d in acme_r.search("secret", 5)] == [acme]
    assert [d["tenant_id"] for d in globex_r.search("secret", 5)] == [globex]

    # Defence in depth: a chunk stored under the wrong tenant in acme's index stays hidden.
    es.index(
        index=index_name(acme),
        id="planted",
        refresh=True,
        document={
            "text": "Globex secret planted in the wrong index: submarine dock.",
            "metadata": {
                "id": "planted",
                "tenant_id": globex,
                "source_type": "index",
                "locator": "/elsewhere.txt",
                "title": "planted",
                "updated_at": "2024-05-01T12:00:00Z",
                "position": 0,
            },
        },
    )
    assert acme_r.search("submarine dock", 5) == []
    assert acme_r.count() == 1


def test_missing_index_counts_zero_and_search_raises(
    es: Elasticsearch, new_tenant: NewTenant
) -> None:
    retriever = TenantRetriever(es, new_tenant())
    assert retriever.count() == 0
    with pytest.raises(RetrievalError, match=r"index_not_found_exception"):
        retriever.search("anything", 3)


def test_closed_port_raises_retrieval_error_naming_tenant_and_index() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # The socket is closed now, so nothing listens on the port.
    client = make_es_client(f"http://127.0.0.1:{port}", request_timeout=2.0, max_retries=0)
    retriever = TenantRetriever(client, "acme")
    with pytest.raises(RetrievalError, match=r"tenant 'acme': count on index crag-acme"):
        retriever.count()
    with pytest.raises(RetrievalError, match=r"tenant 'acme': search on index crag-acme"):
        retriever.search("vacuum", 3)


def test_closed_port_ingest_raises_ingest_error_naming_index(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    (tmp_path / "a.txt").write_text("text")
    client = make_es_client(f"http://127.0.0.1:{port}", request_timeout=2.0, max_retries=0)
    with pytest.raises(IngestError, match=r"index crag-acme"):
        ingest_paths(client, "acme", [tmp_path])


def test_embeddings_add_vectors_and_dims_must_match(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    tenant = new_tenant()
    (tmp_path / "a.md").write_text("# Vectors\n\nDense vectors sit beside BM25 text.")
    report = ingest_paths(es, tenant, [tmp_path], embeddings=DeterministicFakeEmbedding(size=8))
    assert report.chunks == 1
    name = index_name(tenant)
    assert es.indices.get_mapping(index=name)[name]["mappings"]["properties"]["vector"]["dims"] == 8
    [hit] = es.search(index=name, query={"exists": {"field": "vector"}})["hits"]["hits"]
    assert len(hit["_source"]["vector"]) == 8
    assert TenantRetriever(es, tenant).search("dense vectors", 1)[0]["title"] == "Vectors"

    with pytest.raises(IngestError, match=r"8-dimension vectors but the embeddings give 16"):
        ingest_paths(es, tenant, [tmp_path], embeddings=DeterministicFakeEmbedding(size=16))


def test_ensure_indexed_ingests_once_and_again_when_chunks_change(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    tenant = new_tenant()
    page = tmp_path / "a.md"
    page.write_text("# Vacuum\n\nVACUUM reclaims storage occupied by dead tuples.")
    said: list[str] = []
    first = ensure_indexed(es, tenant, [page], index_prefix="crag-", say=said.append)
    assert first is not None and first.chunks == 1
    assert ensure_indexed(es, tenant, [page], index_prefix="crag-", say=said.append) is None

    page.write_text("# Vacuum\n\n" + "VACUUM reclaims storage occupied by dead tuples. " * 40)
    again = ensure_indexed(es, tenant, [page], index_prefix="crag-", say=said.append)
    assert again is not None and again.chunks > 1
    assert any("differ from the" in line for line in said), said
    assert TenantRetriever(es, tenant).count() == again.chunks


def test_ensure_indexed_rebuilds_a_bm25_index_for_hybrid(
    es: Elasticsearch, new_tenant: NewTenant, tmp_path: Path
) -> None:
    tenant = new_tenant()
    page = tmp_path / "a.md"
    page.write_text("# Vectors\n\nDense vectors sit beside BM25 text.")
    ensure_indexed(es, tenant, [page], index_prefix="crag-", say=lambda _: None)
    name = index_name(tenant)
    assert vector_dims(es, name) is None

    said: list[str] = []
    embeddings = DeterministicFakeEmbedding(size=8)
    report = ensure_indexed(
        es, tenant, [page], index_prefix="crag-", embeddings=embeddings, say=said.append
    )
    assert report is not None and report.embedded == 1
    assert vector_dims(es, name) == 8
    assert said[0] == f"re-creating index {name}: it holds no vectors, hybrid retrieval needs 8"
    # Current now, vectors included: nothing is written again.
    assert ensure_indexed(es, tenant, [page], index_prefix="crag-", embeddings=embeddings) is None
