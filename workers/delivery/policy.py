"""Which webhook URLs a tenant may use, and which delivery failures are worth retrying.

URLs are checked when a job is accepted, so the fleet cannot be aimed at internal services
(server-side request forgery, OWASP A10): ``https`` is required and private, loopback,
link-local and other non-public addresses are refused, unless the tenant's allowlist names
the host. Retries follow the Standard Webhooks guidance: timeouts, connection errors, 408,
429 and 5xx are retried (honouring ``Retry-After``); any other 4xx is permanent.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

RETRYABLE_STATUS = frozenset({408, 429})


def webhook_url_problem(
    url: str, allowlist: Collection[str], field: str = "webhook_url"
) -> str | None:
    """Why ``url`` may not receive outcomes (or progress events), or ``None`` when it may.

    Args:
        url: The job's webhook URL (or progress URL).
        allowlist: Hosts (names or IP literals) the tenant allows despite the rules.
        field: The job field the URL came from, to name it in the reason.
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host:
        return f"{field} {url!r} has no host"
    if host in {h.lower() for h in allowlist}:
        return None
    if parts.scheme != "https":
        return f"{field} must use https (host {host!r} is not in the tenant's allowlist)"
    host = host.rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return f"{field} host {host!r} is local"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name (or a shorthand such as 127.1): see resolved_problem
    if not _public(address):
        return f"{field} host {host} is not a public address"
    return None


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def resolve(host: str) -> list[Address]:
    """Every address ``host`` resolves to (``getaddrinfo``, as the HTTP client would).

    Raises:
        OSError: The name does not resolve.
    """
    return [ipaddress.ip_address(info[4][0]) for info in socket.getaddrinfo(host, None)]


def _public(address: Address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_global


def resolved_problem(
    host: str,
    allowlist: Collection[str],
    resolver: Callable[[str], list[Address]] = resolve,
    field: str = "webhook_url",
) -> tuple[str | None, Address | None]:
    """Check where a webhook host really points, closing the holes a name check leaves.

    A public-looking name can resolve to 10.0.0.5, ``127.1`` and ``2130706433`` are
    loopback, and DNS can change between the check and the connection (rebinding). So the
    host is resolved, every address must be public, and the caller connects to the address
    returned here rather than resolving again.

    Returns:
        ``(problem, None)`` when an address is not public; ``(None, address)`` to connect
        to; ``(None, None)`` for an allowlisted host (connect as usual).

    Raises:
        OSError: The host does not resolve (worth retrying later).
    """
    if host.lower().rstrip(".") in {h.lower() for h in allowlist}:
        return None, None
    addresses = resolver(host)
    for address in addresses:
        if not _public(address):
            return f"{field} host {host!r} resolves to non-public address {address}", None
    return None, addresses[0]


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


def intake_problem(
    url: str,
    allowlist: Collection[str],
    resolver: Callable[[str], list[Address]] = resolve,
    field: str = "webhook_url",
) -> str | None:
    """Why a job's webhook URL is refused when the job arrives, or ``None``.

    The static rules of :func:`webhook_url_problem`, then :func:`resolved_problem`. A name
    that does not resolve now is accepted: DNS may be back by delivery time, which checks
    again and retries.
    """
    problem = webhook_url_problem(url, allowlist, field)
    if problem:
        return problem
    try:
        return resolved_problem(urlsplit(url).hostname or "", allowlist, resolver, field)[0]
    except OSError:
        return None
