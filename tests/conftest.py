"""Shared fixtures: the real Postgres and Redis, the redactor, a seeded tenant index,
the local web-search stand-in. A service that is down fails its tests with a message that
names it and says how to start it (never a silent skip)."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from tests.fakes.web_provider import FakeWebProvider
from workers.settings import Settings

DATA = Path(__file__).parent / "data"


def pytest_configure(config: pytest.Config) -> None:
    """Give the session a checkpoint key (inherited by the worker processes tests start),
    unless the environment configures one: checkpoints are always encrypted."""
    from workers.runtime.checkpointing import new_key_file

    if not (os.environ.get("CRAG_CHECKPOINT_KEYS") or os.environ.get("CRAG_CHECKPOINT_KEY_FILE")):
        path = Path(tempfile.mkdtemp(prefix="crag-test-keys-")) / "checkpoint-keys.json"
        new_key_file(path, "test")
        os.environ["CRAG_CHECKPOINT_KEY_FILE"] = str(path)


def _require(name: str, url: str, check: Any) -> None:
    problem = None
    try:
        check()
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        pytest.fail(
            f"{name} is not reachable at {url} ({problem}). "
            "Start the local services with `infra/up`.",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def settings() -> Settings:
    """Settings from the environment (defaults: infra/up's services on 127.0.0.1)."""
    return Settings()


@pytest.fixture(scope="session")
def redis_client(settings: Settings) -> Iterator[Redis]:
    """A client of the real Redis; fails if it is down."""
    client = Redis.from_url(settings.redis_url)
    _require("Redis", settings.redis_url, client.ping)
    yield client
    client.close()


@pytest.fixture(scope="session")
def migrated_db(settings: Settings) -> str:
    """The real Postgres, migrated to head once per session (app and checkpointer tables)."""
    import psycopg

    from workers.runtime.resources import psycopg_url

    url = psycopg_url(settings.database_url)
    _require("PostgreSQL", url.split("@")[-1], lambda: psycopg.connect(url).close())
    from typer.testing import CliRunner

    from workers.cli.main import app

    result = CliRunner().invoke(app, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    return settings.database_url


@pytest.fixture(scope="session")
def redactor() -> Any:
    """The Presidio redactor, loaded once per session."""
    from redaction import build_redactor

    return build_redactor()


@pytest.fixture
def web_provider() -> Iterator[FakeWebProvider]:
    """The local Tavily-compatible stand-in for the third-party provider."""
    with FakeWebProvider() as provider:
        yield provider


@pytest.fixture(scope="session")
def corpus_tenant(es: Any, settings: Settings) -> Iterator[str]:
    """A tenant whose index holds tests/data/corpus (deleted after the session)."""
    from corpus import index_name, ingest_paths

    tenant = f"t-{uuid.uuid4().hex[:10]}"
    report = ingest_paths(es, tenant, [DATA / "corpus"], index_prefix=settings.index_prefix)
    assert report.ok and report.chunks >= 4, report
    yield tenant
    es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)
    forget_tenant(settings, tenant)


def forget_tenant(settings: Settings, tenant: str) -> None:
    """Delete a test tenant's rows and checkpoints, so runs do not pile up data."""
    import psycopg

    from workers.runtime.resources import psycopg_url

    with psycopg.connect(psycopg_url(settings.database_url), autocommit=True) as conn:
        for table in ("webhook_attempts", "outcomes", "jobs", "dead_letters", "threads", "tenants"):
            conn.execute(f"DELETE FROM {table} WHERE tenant_id = %s", (tenant,))
        for table in ("checkpoint_writes", "checkpoint_blobs", "checkpoints"):
            conn.execute(f"DELETE FROM {table} WHERE thread_id LIKE %s", (f"{tenant}:%",))


def unique(prefix: str) -> str:
    """A unique id for isolating a test's data."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
