"""Remembering, per worker process, that a tenant's index has chunks.

The router asks for the size of the tenant's index on every question (an empty index sends
the question to the web or to an abstention). An index that had chunks a moment ago still
has them, so a positive count is reused for ``ttl_s`` seconds and saves an Elasticsearch
round trip per job; an empty or failing index is asked again every time, so the first
question after an ingest sees the new chunks at once.
"""

from __future__ import annotations

import threading
import time

from pipeline.deps import Retriever
from pipeline.documents import Document


class IndexSizes:
    """Positive chunk counts per tenant, each kept for ``ttl_s`` seconds."""

    def __init__(self, ttl_s: float = 60.0) -> None:
        self.ttl_s = ttl_s
        self._seen: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def get(self, tenant_id: str) -> int | None:
        """The remembered count, or ``None`` when unknown or older than the TTL."""
        with self._lock:
            seen = self._seen.get(tenant_id)
        if seen is None or time.monotonic() - seen[0] > self.ttl_s:
            return None
        return seen[1]

    def put(self, tenant_id: str, count: int) -> None:
        """Remember ``count`` if it is positive (an empty index is always asked again)."""
        with self._lock:
            if count > 0:
                self._seen[tenant_id] = (time.monotonic(), count)
            else:
                self._seen.pop(tenant_id, None)


class SizedRetriever:
    """A :class:`~pipeline.deps.Retriever` whose ``count`` goes through :class:`IndexSizes`."""

    def __init__(self, inner: Retriever, tenant_id: str, sizes: IndexSizes) -> None:
        self._inner, self._tenant_id, self._sizes = inner, tenant_id, sizes

    def count(self) -> int:
        """The tenant's chunk count, remembered while positive (see module docstring)."""
        known = self._sizes.get(self._tenant_id)
        if known is not None:
            return known
        count = self._inner.count()
        self._sizes.put(self._tenant_id, count)
        return count

    def search(self, query: str, k: int) -> list[Document]:
        """Search the tenant's index (never cached)."""
        return self._inner.search(query, k)
