"""Which webhook URLs a tenant may use, and which delivery failures are worth retrying.

URLs are checked when a job is accepted, so the fleet cannot be aimed at internal services
(server-side request forgery, OWASP A10): ``https`` is required and private, loopback,
link-local and other non-public addresses are refused, unless the tenant's allowlist names
the host. Retries follow the Standard Webhooks guidance: timeouts, connection errors, 408,
429 and 5xx are retried (honouring ``Retry-After``); any other 4xx is permanent.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

RETRYABLE_STATUS = frozenset({408, 429})


def webhook_url_problem(url: str, allowlist: Collection[str]) -> str | None:
    """Why ``url`` may not receive outcomes, or ``None`` when it may.

    Args:
        url: The job's webhook URL.
        allowlist: Hosts (names or IP literals) the tenant allows despite the rules.
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host:
        return f"webhook_url {url!r} has no host"
    if host in {h.lower() for h in allowlist}:
        return None
    if parts.scheme != "https":
        return f"webhook_url must use https (host {host!r} is not in the tenant's allowlist)"
    if host == "localhost" or host.endswith(".localhost"):
        return f"webhook_url host {host!r} is local"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: resolved by the receiver's DNS, not ours to judge here
    if not address.is_global:
        return f"webhook_url host {host} is not a public address"
    return None


def is_retryable(status: int) -> bool:
    """True for statuses worth retrying: 408, 429 and 5xx."""
    return status in RETRYABLE_STATUS or status >= 500


def retry_after_s(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date, RFC 9110)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
