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
from urllib.parse import urlsplit

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

from pipeline.conflicts import SourceTrust
from pipeline.deps import Deps, Limits, Models, Redactor, RetrievalError, Retriever, WebSearch
from pipeline.documents import Document
from pipeline.graph import build_graph
from workers.breaker import RedisCircuitBreaker
from workers.checkpointing import EncryptedSaver, GuardedSaver, serde_from_settings
from workers.db import repository as repo
from workers.db.engine import make_engine, make_sessionmaker, transaction
from workers.index_sizes import IndexSizes, SizedRetriever
from workers.jobs import Job
from workers.settings import Settings
from workers.tenants import TenantPolicy


def psycopg_url(database_url: str) -> str:
    """The libpq URL for a SQLAlchemy ``postgresql+psycopg://`` URL."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def make_checkpointer(
    database_url: str, max_size: int = 4, serde: SerializerProtocol | None = None
) -> tuple[PostgresSaver, ConnectionPool]:
    """A checkpointer over a psycopg connection pool.

    With ``serde`` (see :func:`workers.checkpointing.serde_from_settings`) it is an
    :class:`~workers.checkpointing.EncryptedSaver` that keeps no channel value in plain
    text; without, a :class:`~workers.checkpointing.GuardedSaver` (plain values). Both
    check the run's guard (its thread lock) before every write.

    Connection settings follow LangGraph's docs: autocommit, no prepared statements, dict rows.
    Each connection is checked as it is handed out, so after a Postgres restart the pool
    replaces dead connections instead of failing the next runs with them.
    """
    pool = ConnectionPool(
        psycopg_url(database_url),
        min_size=1,
        max_size=max_size,
        open=True,
        check=ConnectionPool.check_connection,
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
            from workers.llm_factory import make_embeddings_for

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
        from workers.llm_factory import make_models

        engine = make_engine(settings.database_url)
        redis = Redis.from_url(settings.redis_url)
        checkpointer, pool = make_checkpointer(
            settings.database_url, serde=serde_from_settings(settings)
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
        )

    def deps_for(self, job: Job, policy: TenantPolicy | None = None) -> Deps:
        """The graph's runtime context for one job, under its tenant's policy.

        Web search is available only if a provider is configured, the job allows it and the
        tenant's policy does; otherwise the run cannot reach the web by any path.
        """
        from corpus import TenantRetriever

        policy = policy or TenantPolicy()
        web = job.options.allow_web and policy.web_search
        retriever: Retriever = TenantRetriever(
            self.es, job.tenant_id, index_prefix=self.settings.index_prefix
        )
        if policy.retrieval == "hybrid":
            try:
                retriever = TenantRetriever(
                    self.es,
                    job.tenant_id,
                    index_prefix=self.settings.index_prefix,
                    embeddings=self.embeddings(),
                )
            except RetrievalError as exc:
                retriever = _Unavailable(str(exc))
        return Deps(
            tenant_id=job.tenant_id,
            models=self.models,
            retriever=SizedRetriever(retriever, job.tenant_id, self.index_sizes),
            web_search=self.web_search(job, policy) if web else None,
            redactor=self.egress_redactor(job.tenant_id) if web else self.redactor,
            limits=self.limits,
            allow_web=web,
            breaker=self.breaker,
            deny_terms=policy.deny_terms,
            trust=SourceTrust.parse(policy.source_trust),
            on_conflict="both" if policy.on_conflict == "both" else "abstain",
        )

    def egress_redactor(self, tenant_id: str) -> Redactor:
        """The web-egress redactor for one tenant: its own corpus counts as known-safe words.

        The minimiser keeps a word no list knows when the tenant's index holds it in a few
        chunks (:class:`corpus.known_terms.IndexVocabulary`); answers are cached per tenant.
        """
        from collections import OrderedDict

        from corpus.known_terms import IndexVocabulary
        from redaction.egress import MinimisingRedactor

        if not isinstance(self.redactor, MinimisingRedactor):
            return self.redactor
        cache = self.corpus_words.setdefault(tenant_id, OrderedDict())
        lookup = IndexVocabulary(
            self.es, tenant_id, index_prefix=self.settings.index_prefix, cache=cache
        )
        return self.redactor.for_corpus(lookup)

    def web_search(self, job: Job, policy: TenantPolicy) -> WebSearch | None:
        """The configured provider for ``job``, or ``None`` when none is configured.

        Audited and filtered by the tenant's domain lists (:mod:`workers.egress`).
        """
        s = self.settings
        if not s.web_search_url:
            return None
        from websearch import TavilySearch
        from workers.egress import TenantWebSearch

        provider = TavilySearch(
            s.web_search_url,
            s.web_search_api_key.get_secret_value(),
            timeout_s=s.web_search_timeout_s,
            client=self.http,
            tenant_id=job.tenant_id,
        )
        host = urlsplit(s.web_search_url).hostname or s.web_search_url

        def record(query: str) -> None:
            with transaction(self.sessions) as session:
                repo.record_egress(session, job, host, query)

        return TenantWebSearch(
            provider, record, policy.web_domain_allowlist, policy.web_domain_denylist
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


class _Unavailable:
    """A retriever that cannot search: every call raises the reason (a handled state)."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    def count(self) -> int:
        raise RetrievalError(self._reason)

    def search(self, query: str, k: int) -> list[Document]:
        raise RetrievalError(self._reason)
