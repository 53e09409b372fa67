"""The graph's runtime context for one job (:class:`pipeline.deps.Deps`), per tenant policy.

Built per job from the process's clients (:class:`workers.runtime.resources.Resources`):
the tenant's own index (BM25 or hybrid), the tenant's web policy and the egress audit.
This is job logic, so it lives in the core; the runtime room holds only the clients.
"""

from __future__ import annotations

from collections import OrderedDict
from urllib.parse import urlsplit

from pipeline.conflicts import SourceTrust
from pipeline.deps import Deps, Redactor, RetrievalError, Retriever, WebSearch
from pipeline.documents import Document
from workers.contracts.jobs import Job
from workers.core.tenants import TenantPolicy
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.index_sizes import SizedRetriever
from workers.runtime.resources import Resources


def job_deps(res: Resources, job: Job, policy: TenantPolicy | None = None) -> Deps:
    """The graph's runtime context for ``job``, under its tenant's ``policy`` (default: open).

    Web search is available only if a provider is configured, the job allows it and the
    tenant's policy does; otherwise the run cannot reach the web by any path. A hybrid
    tenant whose embedding model cannot load gets a retriever that raises the reason, so
    the job abstains with ``retrieval_unavailable`` instead of searching another way.
    """
    from corpus import TenantRetriever

    policy = policy or TenantPolicy()
    web = job.options.allow_web and policy.web_search
    retriever: Retriever
    try:
        retriever = TenantRetriever(
            res.es,
            job.tenant_id,
            index_prefix=res.settings.index_prefix,
            embeddings=res.embeddings() if policy.retrieval == "hybrid" else None,
            split_compound=res.settings.multi_hop,
        )
    except RetrievalError as exc:  # a hybrid tenant whose embedding model cannot load
        retriever = _Unavailable(str(exc))
    return Deps(
        tenant_id=job.tenant_id,
        models=res.models,
        retriever=SizedRetriever(retriever, job.tenant_id, res.index_sizes),
        web_search=web_search_for(res, job, policy) if web else None,
        redactor=egress_redactor(res, job.tenant_id) if web else res.redactor,
        limits=res.limits,
        allow_web=web,
        breaker=res.breaker,
        deny_terms=policy.deny_terms,
        trust=SourceTrust.parse(policy.source_trust),
        on_conflict="both" if policy.on_conflict == "both" else "abstain",
        vouch_trust=policy.vouch_trust,
    )


def egress_redactor(res: Resources, tenant_id: str) -> Redactor:
    """The web-egress redactor for one tenant: its own corpus counts as known-safe words.

    The minimiser keeps a word no list knows when the tenant's index holds it in a few
    chunks (:class:`corpus.known_terms.IndexVocabulary`); answers are cached per tenant.
    """
    from corpus.known_terms import IndexVocabulary
    from redaction.egress import MinimisingRedactor

    if not isinstance(res.redactor, MinimisingRedactor):
        return res.redactor
    cache = res.corpus_words.setdefault(tenant_id, OrderedDict())
    lookup = IndexVocabulary(res.es, tenant_id, index_prefix=res.settings.index_prefix, cache=cache)
    return res.redactor.for_corpus(lookup)


def web_search_for(res: Resources, job: Job, policy: TenantPolicy) -> WebSearch | None:
    """The configured provider for ``job``, or ``None`` when none is configured.

    Filtered by the tenant's domain lists and audited (:mod:`workers.runtime.egress`):
    every query that leaves is recorded in its own short transaction, committed before
    the query is sent, so the egress record holds even if the run dies right after.
    """
    s = res.settings
    if not s.web_search_url:
        return None
    from websearch import TavilySearch
    from workers.runtime.egress import TenantWebSearch

    provider = TavilySearch(
        s.web_search_url,
        s.web_search_api_key.get_secret_value(),
        timeout_s=s.web_search_timeout_s,
        client=res.http,
        tenant_id=job.tenant_id,
    )
    host = urlsplit(s.web_search_url).hostname or s.web_search_url

    def record(query: str) -> None:
        with transaction(res.sessions) as session:
            repo.record_egress(session, job, host, query)

    return TenantWebSearch(
        provider, record, policy.web_domain_allowlist, policy.web_domain_denylist
    )


class _Unavailable:
    """A retriever that cannot search: every call raises the reason (a handled state)."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    def count(self) -> int:
        raise RetrievalError(self._reason)

    def search(self, query: str, k: int) -> list[Document]:
        raise RetrievalError(self._reason)
