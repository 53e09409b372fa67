"""The process-wide Elasticsearch client factory.

Build one client per process (worker start-up or CLI) and share it: the client holds a
connection pool, so per-request clients would waste sockets and TLS handshakes.
"""

from __future__ import annotations

from elasticsearch import Elasticsearch

DEFAULT_REQUEST_TIMEOUT_S = 10.0
"""Per-request timeout, seconds. Searches answer in milliseconds; bulk writes override it."""

DEFAULT_MAX_RETRIES = 2
"""Retries per request on connection errors and timeouts (so up to 3 attempts)."""


def make_es_client(
    url: str,
    *,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT_S,
    max_retries: int = DEFAULT_MAX_RETRIES,
) -> Elasticsearch:
    """Return an Elasticsearch client for ``url`` with bounded timeouts and retries.

    No request is made here; an unreachable cluster surfaces on first use.

    Args:
        url: Cluster URL, e.g. ``http://127.0.0.1:29200`` (settings ``elasticsearch_url``).
        request_timeout: Per-request timeout in seconds.
        max_retries: Retries per request after a connection error or timeout.

    Returns:
        A client to share across the process.
    """
    return Elasticsearch(
        url,
        request_timeout=request_timeout,
        max_retries=max_retries,
        # Every request we send is idempotent (searches, counts, index-by-id, deletes by
        # query on a fixed locator set), so retrying after a timeout cannot duplicate data.
        retry_on_timeout=True,
    )
