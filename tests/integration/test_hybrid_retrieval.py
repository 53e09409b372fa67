"""Hybrid retrieval on the real Elasticsearch with the packaged ONNX MiniLM.

A small corpus is ingested with vectors; BM25 and hybrid search are compared on a question
that shares no content word with the chunk that answers it, and the fleet's choice per
tenant (and its failure when no embedding model is configured) is checked.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus import TenantRetriever, index_name, ingest_paths, make_embeddings
from pipeline.deps import Models, RetrievalError
from tests.conftest import forget_tenant
from tests.integration.graph_helpers import torque_model
from workers.contracts.jobs import Job
from workers.core.deps import job_deps
from workers.core.tenants import TenantPolicy
from workers.runtime.resources import Resources
from workers.settings import Settings

pytestmark = pytest.mark.integration

DOCS = {
    "network.md": "# Network\n\nThe daemon accepts client sockets on 5432 unless told otherwise.",
    "storage.md": "# Storage\n\nTo port a table to another tablespace, use ALTER TABLE.",
    "cooking.md": "# Cooking\n\nBoil the pasta for ten minutes in salted water.",
}
QUESTION = "Which port number does the database server listen on?"


@pytest.fixture(scope="module")
def embeddings() -> Any:
    return make_embeddings("minilm")


@pytest.fixture(scope="module")
def hybrid_tenant(
    es: Any, settings: Settings, embeddings: Any, tmp_path_factory: Any
) -> Iterator[tuple[str, Any, list[tuple[int, int, int]]]]:
    root: Path = tmp_path_factory.mktemp("hybrid-corpus")
    for name, text in DOCS.items():
        (root / name).write_text(text)
    tenant = f"t-hy-{uuid.uuid4().hex[:8]}"
    seen: list[tuple[int, int, int]] = []
    report = ingest_paths(
        es,
        tenant,
        [root],
        index_prefix=settings.index_prefix,
        embeddings=embeddings,
        progress=lambda *p: seen.append(p),
    )
    yield tenant, report, seen
    es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)


def test_ingest_embeds_every_chunk_and_reports_its_cost(hybrid_tenant: Any) -> None:
    _tenant, report, seen = hybrid_tenant
    assert report.ok and report.chunks == report.embedded == 3
    assert report.embed_s > 0
    assert seen[-1] == (3, 3, 3)  # files done, files total, chunks written
    assert [done for done, _, _ in seen] == sorted(done for done, _, _ in seen)


def test_hybrid_finds_the_chunk_bm25_cannot(
    es: Any, settings: Settings, embeddings: Any, hybrid_tenant: Any
) -> None:
    tenant = hybrid_tenant[0]
    bm25 = TenantRetriever(es, tenant, index_prefix=settings.index_prefix)
    hybrid = TenantRetriever(es, tenant, index_prefix=settings.index_prefix, embeddings=embeddings)
    lexical = [d["locator"].rsplit("/", 1)[-1] for d in bm25.search(QUESTION, 2)]
    fused = hybrid.search(QUESTION, 2)
    assert "network.md" not in lexical  # no content word in common with the question
    assert "network.md" in [d["locator"].rsplit("/", 1)[-1] for d in fused]
    assert all(d["tenant_id"] == tenant for d in fused)
    assert fused[0]["score"] >= fused[1]["score"] > 0  # fused RRF scores, best first
    assert hybrid.mode == "hybrid" and bm25.mode == "bm25"


def test_a_query_that_cannot_be_embedded_is_a_retrieval_error(
    es: Any, settings: Settings, hybrid_tenant: Any
) -> None:
    class Broken:
        def embed_query(self, text: str) -> list[float]:
            raise ConnectionError("embedding endpoint down")

    retriever = TenantRetriever(
        es,
        hybrid_tenant[0],
        index_prefix=settings.index_prefix,
        embeddings=Broken(),  # type: ignore[arg-type]
    )
    with pytest.raises(RetrievalError, match="embedding the query failed: ConnectionError"):
        retriever.search(QUESTION, 2)


def _job(tenant: str) -> Job:
    return Job.model_validate(
        {"job_id": uuid.uuid4().hex, "tenant_id": tenant, "thread_id": "t-1", "question": "q?"}
    )


def test_the_fleet_searches_a_hybrid_tenant_with_vectors_and_names_a_missing_model(
    settings: Settings, migrated_db: str, hybrid_tenant: Any
) -> None:
    tenant = hybrid_tenant[0]
    res = Resources.create(settings, models=Models.single(torque_model()))
    try:
        deps = job_deps(res, _job(tenant), TenantPolicy(retrieval="hybrid"))
        assert deps.retriever is not None
        found = deps.retriever.search(QUESTION, 2)
        assert "network.md" in [d["locator"].rsplit("/", 1)[-1] for d in found]
    finally:
        res.close()
    off = Resources.create(
        settings.model_copy(update={"embeddings": "none"}), models=Models.single(torque_model())
    )
    try:
        deps = job_deps(off, _job(tenant), TenantPolicy(retrieval="hybrid"))
        assert deps.retriever is not None
        with pytest.raises(RetrievalError, match="CRAG_EMBEDDINGS=none"):
            deps.retriever.search(QUESTION, 2)
    finally:
        off.close()


def test_cli_a_hybrid_tenant_is_ingested_with_vectors_and_the_cost_is_printed(
    es: Any, settings: Settings, migrated_db: str, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from workers.cli.main import app as cli

    for name, text in DOCS.items():
        (tmp_path / name).write_text(text)
    tenant = f"t-hy-{uuid.uuid4().hex[:8]}"
    runner = CliRunner()
    created = runner.invoke(cli, ["tenants", "create", tenant, "--retrieval", "hybrid"])
    assert created.exit_code == 0, created.output
    shown = runner.invoke(cli, ["tenants", "show", tenant])
    assert '"retrieval": "hybrid"' in shown.output
    try:
        ingested = runner.invoke(cli, ["ingest", "--tenant", tenant, str(tmp_path)])
        assert ingested.exit_code == 0, ingested.output
        assert "3 files, 3 chunks" in ingested.output
        # Not a terminal: progress comes as plain lines, the last one at all files.
        assert "embedding + indexing: 3/3 files, 3 chunks" in ingested.output
        assert "embedded 3 chunks in" in ingested.output and "chunks/s" in ingested.output
        wrong = runner.invoke(cli, ["tenants", "update", tenant, "--retrieval", "vector"])
        assert wrong.exit_code == 2 and "vector" in wrong.output
        back = runner.invoke(cli, ["tenants", "update", tenant, "--retrieval", "bm25"])
        assert back.exit_code == 0 and '"retrieval": "bm25"' in back.output
        assert "submission key" not in back.output  # changing retrieval keeps the key
        rotated = runner.invoke(cli, ["tenants", "update", tenant, "--rotate-submission-key"])
        assert rotated.exit_code == 0 and "submission key:  " in rotated.output
        old_key = created.output.split("submission key:")[1].split()[0]
        assert rotated.output.split("submission key:")[1].split()[0] != old_key
    finally:
        es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)
        forget_tenant(settings, tenant)


def test_ensure_tenant_sets_retrieval_on_create_and_on_an_existing_tenant(
    settings: Settings, migrated_db: str
) -> None:
    from workers.core.tenants import ensure_tenant
    from workers.db import repository as repo
    from workers.db.engine import sessions_for

    tenant = f"t-hy-{uuid.uuid4().hex[:8]}"
    sessions = sessions_for(settings.database_url)

    def retrieval() -> str:
        with sessions() as session:
            row = repo.get_tenant(session, tenant)
            assert row is not None
            return row.retrieval

    try:
        assert ensure_tenant(sessions, tenant).created
        assert retrieval() == "bm25"
        assert not ensure_tenant(sessions, tenant, retrieval="hybrid").created
        assert retrieval() == "hybrid"
        ensure_tenant(sessions, tenant)  # None keeps what the tenant has
        assert retrieval() == "hybrid"
    finally:
        forget_tenant(settings, tenant)
