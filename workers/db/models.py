"""SQLAlchemy models of the app tables. The checkpointer's tables belong to LangGraph."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

JsonB = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    """Declarative base of the app tables."""


class Tenant(Base):
    """A customer: its own index, keys, web-search policy and retention."""

    __tablename__ = "tenants"

    tenant_id: Mapped[str] = mapped_column(String(63), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="active", doc="active | disabled")
    webhook_secret: Mapped[str] = mapped_column(Text, doc="Standard Webhooks secret (whsec_…).")
    submission_key: Mapped[str] = mapped_column(
        Text, doc="Key producers sign jobs with (csk_…); see workers.contracts.signing."
    )
    webhook_allowlist: Mapped[list[str]] = mapped_column(
        JsonB, default=list, doc="Webhook hosts allowed despite the https/public-address rules."
    )
    web_search: Mapped[bool] = mapped_column(Boolean, default=True)
    web_domain_allowlist: Mapped[list[str]] = mapped_column(
        JsonB, default=list, doc="Only web results from these domains (empty: any)."
    )
    web_domain_denylist: Mapped[list[str]] = mapped_column(
        JsonB, default=list, doc="Never web results from these domains."
    )
    deny_terms: Mapped[list[str]] = mapped_column(
        JsonB, default=list, doc="Terms redacted from every outgoing query (names, code names)."
    )
    retention_days: Mapped[int] = mapped_column(Integer, default=30)
    retrieval: Mapped[str] = mapped_column(
        String(16), default="bm25", doc="bm25 | hybrid (BM25 + kNN over MiniLM vectors, RRF)"
    )
    source_trust: Mapped[list[str]] = mapped_column(
        JsonB, default=list, doc="PATTERN=LEVEL rules on source locators (first match wins)."
    )
    on_conflict: Mapped[str] = mapped_column(
        String(16), default="abstain", doc="abstain | both: what a conflict between sources ends in"
    )
    vouch_trust: Mapped[int | None] = mapped_column(
        Integer, nullable=True, doc="Lowest source rank that vouches for a fact alone (NULL: any)."
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ThreadRecord(Base):
    """A conversation thread of a tenant, with its fencing token.

    ``fence`` grows by one each time a worker takes the thread's lock; a worker may store an
    outcome or a checkpoint only while the fence is still the one it was given (fencing
    tokens, after Kleppmann, "How to do distributed locking", 2016).
    """

    __tablename__ = "threads"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    thread_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    checkpoint_thread_id: Mapped[str] = mapped_column(
        Text, unique=True, doc="The checkpointer's thread_id ('tenant:thread')."
    )
    fence: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    # A thread id has one owner: a job of another tenant naming it is refused.
    __table_args__ = (UniqueConstraint("thread_id", name="uq_threads_thread_id"),)


class JobRecord(Base):
    """A job as received, and where it is (queued → running → answered|abstained|failed).

    Unfinished jobs of a thread (``queued`` or ``running``) take turns by ``submitted_at``.
    """

    __tablename__ = "jobs"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.tenant_id"), primary_key=True)
    job_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    thread_id: Mapped[str] = mapped_column(String(128))
    question: Mapped[str] = mapped_column(Text)
    webhook_url: Mapped[str | None] = mapped_column(Text)
    progress_url: Mapped[str | None] = mapped_column(Text)
    options: Mapped[dict[str, Any]] = mapped_column(JsonB, default=dict)
    status: Mapped[str] = mapped_column(String(16), default="running")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    submitted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    subject_id: Mapped[str | None] = mapped_column(
        String(200), doc="The end user the job is about (job metadata), for deletion."
    )
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        Index("ix_jobs_thread", "tenant_id", "thread_id"),
        Index("ix_jobs_thread_turn", "tenant_id", "thread_id", "submitted_at"),
    )


class OutcomeRecord(Base):
    """The one outcome of a job, stored before delivery (the outbox row)."""

    __tablename__ = "outcomes"

    tenant_id: Mapped[str] = mapped_column(String(63), primary_key=True)
    job_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    webhook_id: Mapped[str] = mapped_column(String(64), unique=True)
    status: Mapped[str] = mapped_column(String(16))
    body: Mapped[dict[str, Any]] = mapped_column(JsonB)
    delivery_status: Mapped[str] = mapped_column(
        String(16), default="pending", doc="pending | delivered | dead | none (no webhook)"
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class WebhookAttempt(Base):
    """One attempt to deliver an outcome to its webhook."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(63))
    job_id: Mapped[str] = mapped_column(String(200))
    webhook_id: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(Text)
    attempt: Mapped[int] = mapped_column(Integer)
    http_status: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    latency_ms: Mapped[int | None] = mapped_column(Integer)
    response_body: Mapped[str | None] = mapped_column(Text, doc="First 1,000 characters.")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    __table_args__ = (Index("ix_webhook_attempts_job", "tenant_id", "job_id"),)


class DeadLetter(Base):
    """A job or a delivery we gave up on, with the reason; nothing is dropped silently."""

    __tablename__ = "dead_letters"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(16), doc="job | webhook")
    tenant_id: Mapped[str | None] = mapped_column(String(63))
    job_id: Mapped[str | None] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text)
    payload: Mapped[Any] = mapped_column(JsonB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class EgressRecord(Base):
    """One query that left the fleet for web search: redacted form only."""

    __tablename__ = "egress_records"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(63))
    job_id: Mapped[str | None] = mapped_column(String(200))
    thread_id: Mapped[str | None] = mapped_column(String(128))
    provider: Mapped[str] = mapped_column(Text)
    query: Mapped[str] = mapped_column(Text, doc="The redacted query, as sent.")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
