"""Process-wide clients and pools, built once per worker process (after fork).

One SQLAlchemy engine, one psycopg pool for the checkpointer, one Redis client, one
Elasticsearch client, one httpx client, the compiled graph, the chat models and the Presidio
redactor. Nothing here runs at import time; :func:`get_resources` builds on first use.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any

import httpx
from elasticsearch import Elasticsearch
from langchain_core.embeddings import Embeddings
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool
from redis import Redis
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from pipeline.deps import Limits, Models, Redactor, RetrievalError
from pipeline.graph import build_graph
from workers.db.engine import make_engine, make_sessionmaker
from workers.db.liveness import psycopg_check_when_idle
from workers.runtime.breaker import RedisCircuitBreaker
from workers.runtime.checkpointing import (
    EncryptedSaver,
    GuardedSaver,
    KeyRing,
    encrypted_serde,
    key_ring_from_settings,
)
from workers.runtime.index_sizes import IndexSizes
from workers.settings import Settings


def psycopg_url(database_url: str) -> str:
    """The libpq URL for a SQLAlchemy ``postgresql+psycopg://`` URL."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def make_checkpointer(
    database_url: str, max_size: int = 4, serde: SerializerProtocol | None = None
) -> tuple[PostgresSaver, ConnectionPool]:
    """A checkpointer over a psycopg connection pool.

    With ``serde`` (see :func:`workers.runtime.checkpointing.serde_from_settings`) it is an
    :class:`~workers.runtime.checkpointing.EncryptedSaver` that keeps no channel value in plain
    text; without, a :class:`~workers.runtime.checkpointing.GuardedSaver` (plain values). Both
    check the run's guard (its thread lock) before every write.

    Connection settings follow LangGraph's docs: autocommit, no prepared statements, dict rows.
    A connection idle for a while is checked as it is handed out
    (:func:`workers.db.liveness.psycopg_check_when_idle`), so after a Postgres restart the
    pool replaces dead connections instead of failing the next runs with them; one used
    a moment ago is not (that ping was one more round trip per checkpoint).
    """
    check, reset = psycopg_check_when_idle()
    pool = ConnectionPool(
        psycopg_url(database_url),
        min_size=1,
        max_size=max_size,
        open=True,
        check=check,
        reset=reset,
        timeout=5.0,  # fail fast (a retryable PoolTimeout) while Postgres is away
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    if serde is None:
        return GuardedSaver(pool), pool  # type: ignore[arg-type]
    return EncryptedSaver(pool, serde=serde), pool  # type: ignore[arg-type]


def limits_from(settings: Settings) -> Limits:
    """The graph's limits, from the settings of the same names (``CRAG_MAX_REWRITES``…)."""
    return Limits(**{f.name: getattr(settings, f.name) for f in dataclasses.fields(Limits)})


@dataclass
class Resources:
    """Everything a worker process shares across jobs."""

    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    redis: Redis
    es: Elasticsearch
    http: httpx.Client
    pool: ConnectionPool
    checkpointer: PostgresSaver
    graph: Any
    models: Models
    redactor: Redactor
    limits: Limits
    breaker: RedisCircuitBreaker
    progress_cipher: KeyRing | None = None
    """The checkpoint keys, which also encrypt progress payloads (``None``: encryption off)."""
    index_sizes: IndexSizes = dataclasses.field(default_factory=IndexSizes)
    corpus_words: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Per tenant, the cache of :class:`corpus.known_terms.IndexVocabulary` answers."""
    _embeddings: Embeddings | None = dataclasses.field(default=None, repr=False)

    def embeddings(self) -> Embeddings:
        """The embedding model of hybrid tenants (``CRAG_EMBEDDINGS``), loaded on first use.

        Raises:
            pipeline.deps.RetrievalError: ``CRAG_EMBEDDINGS`` is ``none``, or the model
                could not be loaded (the message names the fix); the job then abstains
                with ``retrieval_unavailable`` rather than searching another way.
        """
        if self._embeddings is None:
            from workers.runtime.models import make_embeddings_for

            try:
                model = make_embeddings_for(self.settings)
            except (ImportError, ValueError) as exc:
                raise RetrievalError(f"hybrid retrieval: {exc}") from exc
            if model is None:
                raise RetrievalError(
                    "hybrid retrieval needs an embedding model, but CRAG_EMBEDDINGS=none; "
                    "set it to minilm (or openai), or switch the tenant to bm25"
                )
            self._embeddings = model
        return self._embeddings

    @classmethod
    def create(cls, settings: Settings, *, models: Models | None = None) -> Resources:
        """Open pools and clients and compile the graph.

        Args:
            settings: Process settings.
            models: Chat models by role (default: from settings; tests inject scripted ones).
        """
        from corpus import make_es_client
        from redaction.egress import build_egress_redactor
        from workers.runtime.models import make_models

        engine = make_engine(settings.database_url)
        redis = Redis.from_url(settings.redis_url)
        ring = key_ring_from_settings(settings)  # checkpoints and progress payloads
        checkpointer, pool = make_checkpointer(
            settings.database_url, serde=encrypted_serde(ring) if ring else None
        )
        return cls(
            settings=settings,
            engine=engine,
            sessions=make_sessionmaker(engine),
            redis=redis,
            es=make_es_client(settings.elasticsearch_url),
            http=httpx.Client(timeout=settings.webhook_timeout_s),
            pool=pool,
            checkpointer=checkpointer,
            graph=build_graph(checkpointer),
            models=models or make_models(settings),
            redactor=build_egress_redactor(),
            limits=limits_from(settings),
            breaker=RedisCircuitBreaker(
                redis,
                failures=settings.breaker_failures,
                window_s=settings.breaker_window_s,
                cooldown_s=settings.breaker_cooldown_s,
            ),
            progress_cipher=ring,
        )

    def close(self) -> None:
        """Close every pool and client."""
        self.pool.close()
        self.engine.dispose()
        self.redis.close()
        self.es.close()
        self.http.close()


_lock = threading.Lock()
_resources: Resources | None = None


def get_resources(settings: Settings | None = None) -> Resources:
    """This process's resources, built on first call (thread-safe)."""
    global _resources
    with _lock:
        if _resources is None:
            from workers.settings import get_settings

            _resources = Resources.create(settings or get_settings())
        return _resources


def set_resources(resources: Resources | None) -> None:
    """Install (or clear) this process's resources; tests use it to inject scripted models."""
    global _resources
    with _lock:
        _resources = resources


def close_resources() -> None:
    """Close and forget this process's resources, if it built any."""
    global _resources
    with _lock:
        if _resources is not None:
            _resources.close()
        _resources = None
