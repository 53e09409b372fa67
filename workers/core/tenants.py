"""Tenants: registration, their keys, and the policy a job of theirs runs under.

A tenant is a row in Postgres (``tenants``) holding its webhook secret (Standard Webhooks,
``whsec_…``), its job-submission key (``csk_…``, which producers sign jobs with; see
:mod:`workers.contracts.signing`), web-search policy (on/off, domain allow/deny lists), terms to
redact from anything that leaves the fleet, and how long its data is kept.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from workers.db import repository as repo
from workers.db.engine import transaction
from workers.db.models import Tenant
from workers.delivery.attempt import check_secret, new_secret

SUBMISSION_KEY_PREFIX = "csk_"


def new_submission_key() -> str:
    """A fresh job-submission key: ``csk_`` + base64 of 32 random bytes."""
    return SUBMISSION_KEY_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


@dataclass(frozen=True)
class TenantKeys:
    """What a tenant's systems need: the webhook secret and the job-submission key."""

    tenant_id: str
    webhook_secret: str
    submission_key: str
    created: bool


@dataclass(frozen=True)
class TenantPolicy:
    """How a tenant's jobs may run: copied from its row when a job starts.

    ``web_search`` off means the router cannot choose the web and no fallback reaches it.
    Domains are matched on the result URL's host and its parent domains. ``retrieval`` is
    ``bm25`` or ``hybrid`` (BM25 and kNN over the vectors of ``CRAG_EMBEDDINGS``, fused).
    ``source_trust`` ranks sources (``PATTERN=LEVEL``, :class:`pipeline.conflicts.SourceTrust`)
    and ``on_conflict`` is what an unsettled conflict between them ends in. ``vouch_trust``
    is the lowest rank that may alone state a fact an answer gives (``None``: any source;
    :mod:`pipeline.vouching`).
    """

    web_search: bool = True
    web_domain_allowlist: tuple[str, ...] = ()
    web_domain_denylist: tuple[str, ...] = ()
    deny_terms: tuple[str, ...] = ()
    retention_days: int = 30
    retrieval: str = "bm25"
    source_trust: tuple[str, ...] = ()
    on_conflict: str = "abstain"
    vouch_trust: int | None = None

    @classmethod
    def of(cls, tenant: Tenant) -> TenantPolicy:
        """The policy stored on ``tenant``'s row."""
        return cls(
            web_search=tenant.web_search,
            web_domain_allowlist=tuple(tenant.web_domain_allowlist),
            web_domain_denylist=tuple(tenant.web_domain_denylist),
            deny_terms=tuple(tenant.deny_terms),
            retention_days=tenant.retention_days,
            retrieval=tenant.retrieval,
            source_trust=tuple(tenant.source_trust or ()),
            on_conflict=tenant.on_conflict or "abstain",
            vouch_trust=tenant.vouch_trust,
        )


def ensure_tenant(
    sessions: sessionmaker[Session],
    tenant_id: str,
    *,
    webhook_secret: str | None = None,
    allow_hosts: Sequence[str] = (),
    name: str | None = None,
    retrieval: str | None = None,
) -> TenantKeys:
    """Register ``tenant_id`` if needed (or add ``allow_hosts`` to its webhook allowlist).

    ``retrieval`` (``bm25`` or ``hybrid``), when given, is the tenant's retrieval, also for
    a tenant already registered; ``None`` keeps it (``bm25`` for a new tenant). The caller
    owns making the index match (hybrid needs vectors: :func:`corpus.freshness.ensure_indexed`).

    Raises:
        ValueError: ``webhook_secret`` is malformed, or differs from the registered one.
    """
    if webhook_secret is not None:
        check_secret(webhook_secret)
    with transaction(sessions) as session:
        existing = repo.get_tenant(session, tenant_id)
        if existing is not None:
            if webhook_secret is not None and webhook_secret != existing.webhook_secret:
                raise ValueError(f"tenant {tenant_id!r} is already registered with another secret")
            repo.allow_webhook_hosts(session, existing, allow_hosts)
            if retrieval is not None:
                existing.retrieval = retrieval
            return TenantKeys(tenant_id, existing.webhook_secret, existing.submission_key, False)
        tenant = repo.add_tenant(
            session,
            Tenant(
                tenant_id=tenant_id,
                name=name or tenant_id,
                status="active",
                webhook_secret=webhook_secret or new_secret(),
                submission_key=new_submission_key(),
                webhook_allowlist=sorted(set(allow_hosts)),
                web_search=True,
                web_domain_allowlist=[],
                web_domain_denylist=[],
                deny_terms=[],
                retention_days=30,
                retrieval=retrieval or "bm25",
                source_trust=[],
                on_conflict="abstain",
            ),
        )
        return TenantKeys(tenant_id, tenant.webhook_secret, tenant.submission_key, True)
