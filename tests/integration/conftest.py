"""Fixtures for integration tests against the services that ``infra/up`` starts.

A service that is down FAILS the tests that need it, with a message saying how to start
it: skipping would let a broken environment pass as green.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch

from corpus import index_name, ingest_paths, make_es_client
from corpus.ingest import IngestReport
from workers.settings import Settings, get_settings


@pytest.fixture(scope="session")
def redactor() -> object:
    """The service's web-egress redactor (minimise, then Presidio), loaded once per session.

    Overrides the Presidio-only fixture of ``tests/conftest.py``: the graph runs here with
    the redactor the workers use (:func:`redaction.egress.build_egress_redactor`).
    """
    from redaction.egress import build_egress_redactor

    return build_egress_redactor()


@pytest.fixture(scope="session")
def es() -> Iterator[Elasticsearch]:
    """The Elasticsearch client at settings ``elasticsearch_url``; fails if it is down."""
    url = get_settings().elasticsearch_url
    client = make_es_client(url, max_retries=0)
    problem = None
    try:
        client.info()
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:  # outside the except block, so no chained traceback is shown
        client.close()
        pytest.fail(
            f"Elasticsearch is not reachable at {url} ({problem}). "
            "Start the local services with `infra/up`.",
            pytrace=False,
        )
    yield client
    client.close()


@contextmanager
def indexed_tenant(
    es: Elasticsearch, settings: Settings, root: Path, docs: Mapping[str, str], stem: str
) -> Iterator[tuple[str, IngestReport]]:
    """A new tenant ``<stem>-<hex>`` with ``docs`` (file name → text) written under ``root``
    and ingested; its index is deleted afterwards. Yields the tenant and the ingest report."""
    for name, text in docs.items():
        (root / name).write_text(text)
    tenant = f"{stem}-{uuid.uuid4().hex[:8]}"
    try:
        yield tenant, ingest_paths(es, tenant, [root], index_prefix=settings.index_prefix)
    finally:
        es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)
