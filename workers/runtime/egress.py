"""What leaves the fleet for web search: a tenant's policy applied, every query recorded.

:class:`TenantWebSearch` wraps the provider for one job. Before a query leaves it is written
to the audit table (``egress_records``: the redacted query as sent, tenant, job, thread,
provider, time), so even a request that then fails is on record; results from domains the
tenant denies (or outside the domains it allows) are dropped before anything grades them.
The query it receives is already redacted (the graph's ``redact_query`` node).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from pipeline.deps import WebSearch
from pipeline.documents import Document


def domain_matches(host: str, domains: Sequence[str]) -> bool:
    """True if ``host`` is one of ``domains`` or a subdomain of one (case-insensitive)."""
    host = host.lower().rstrip(".")
    return any(host == d or host.endswith("." + d) for d in (x.lower().strip(".") for x in domains))


def allowed(url: str, allow: Sequence[str], deny: Sequence[str]) -> bool:
    """Whether a result at ``url`` passes the tenant's domain lists (deny wins)."""
    host = urlsplit(url).hostname or ""
    if not host or domain_matches(host, deny):
        return False
    return not allow or domain_matches(host, allow)


class TenantWebSearch:
    """A :class:`~pipeline.deps.WebSearch` for one job: audited, domain-filtered."""

    def __init__(
        self,
        inner: WebSearch,
        record: Callable[[str], None],
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
    ) -> None:
        """Wrap ``inner``.

        Args:
            inner: The provider (e.g. :class:`websearch.TavilySearch`).
            record: Called with each query before it is sent; it must store it durably
                (raising stops the query from leaving).
            allow: Only results from these domains (empty: any).
            deny: Never results from these domains.
        """
        self._inner, self._record = inner, record
        self._allow, self._deny = tuple(allow), tuple(deny)

    def search(self, query: str, max_results: int) -> list[Document]:
        """Record ``query``, search, and keep the results the tenant's domains allow."""
        self._record(query)
        docs = self._inner.search(query, max_results)
        return [d for d in docs if allowed(d["locator"], self._allow, self._deny)]
