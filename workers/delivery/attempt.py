"""Webhook delivery signed per the Standard Webhooks spec (https://www.standardwebhooks.com).

Each outcome is POSTed as compact JSON with ``webhook-id`` (stable per outcome, so receivers
de-duplicate retries), ``webhook-timestamp`` (Unix seconds) and ``webhook-signature``
(``v1,<base64 HMAC-SHA256>`` over ``id.timestamp.body`` with the tenant's secret), computed by
the ``standardwebhooks`` library. Retries, backoff and dead-lettering are the Celery task's
job (:mod:`workers.celery.tasks`); this module makes one attempt.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook

from workers.delivery.policy import (
    Address,
    is_retryable,
    resolve,
    resolved_problem,
    retry_after_s,
)

RESPONSE_BODY_LIMIT = 1000
"""Characters of a receiver's reply kept with each attempt."""


def check_secret(secret: str) -> None:
    """Raise ``ValueError`` unless ``secret`` is a usable Standard Webhooks secret.

    Raises:
        ValueError: Not ``whsec_`` followed by base64 of at least 24 bytes.
    """
    if not secret.startswith("whsec_"):
        raise ValueError("a webhook secret starts with 'whsec_' followed by base64")
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except ValueError as exc:
        raise ValueError(f"the webhook secret is not valid base64: {exc}") from exc
    if len(key) < 24:
        raise ValueError(f"the webhook secret has {len(key)} bytes; use at least 24")


def new_secret() -> str:
    """A fresh Standard Webhooks secret: ``whsec_`` + base64 of 32 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def encode_body(body: dict[str, Any]) -> str:
    """The exact bytes that are signed and sent (compact, key-sorted JSON)."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def signed_headers(
    secret: str, msg_id: str, payload: str, at: datetime | None = None
) -> dict[str, str]:
    """Standard Webhooks headers for ``payload``.

    Args:
        secret: The tenant's ``whsec_…`` secret.
        msg_id: The outcome's stable ``webhook-id``.
        payload: The body exactly as sent.
        at: Signing time (default now, UTC).
    """
    at = at or datetime.now(UTC)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, at, payload),
        "content-type": "application/json",
    }


@dataclass(frozen=True)
class Attempt:
    """The result of one POST: ``ok`` on 2xx; otherwise the status or the error.

    ``permanent`` marks a failure no retry can fix (a 4xx other than 408/429, or a secret
    that cannot sign); ``retry_after_s`` is the receiver's ``Retry-After``, if it sent one.
    """

    ok: bool
    http_status: int | None
    error: str | None
    permanent: bool = False
    retry_after_s: float | None = None
    latency_ms: int | None = None
    response_body: str | None = None


def post_signed(
    client: httpx.Client,
    url: str,
    secret: str,
    msg_id: str,
    body: dict[str, Any],
    timeout_s: float,
    allowlist: Collection[str] = (),
    resolver: Callable[[str], list[Address]] = resolve,
) -> Attempt:
    """POST one signed body (outcome or progress event); never raises on HTTP/network errors.

    A host outside the tenant's ``allowlist`` is resolved first and every address must be
    public (:func:`~workers.delivery.policy.resolved_problem`); the request then goes to the
    checked address, with the name kept for ``Host``, SNI and certificate checks, so DNS
    rebinding between check and connection cannot aim it at an internal service.

    Args:
        client: The process-wide HTTP client.
        url: The job's webhook URL.
        secret: The tenant's webhook secret.
        msg_id: The body's stable ``webhook-id``.
        body: The outcome body, or a progress event's (:mod:`workers.delivery.progress_push`).
        timeout_s: Whole-request timeout, seconds.
        allowlist: Hosts the tenant allows without the public-address rule.
        resolver: Name to addresses (default ``getaddrinfo``).
    """
    payload = encode_body(body)
    try:
        headers = signed_headers(secret, msg_id, payload)
    except Exception as exc:  # standardwebhooks raises plain errors on a malformed secret
        return Attempt(False, None, f"cannot sign with the tenant's secret: {exc}", True)
    parts = httpx.URL(url)
    try:
        problem, address = resolved_problem(parts.host, allowlist, resolver)
    except OSError as exc:
        return Attempt(False, None, f"cannot resolve {parts.host!r}: {exc}")
    if problem:
        return Attempt(False, None, problem, permanent=True)
    extensions: dict[str, Any] = {}
    if address is not None:
        headers["host"] = parts.netloc.decode()
        extensions["sni_hostname"] = parts.host
        parts = parts.copy_with(host=str(address))
    started = time.perf_counter()
    try:
        response = client.post(
            parts,
            content=payload.encode(),
            headers=headers,
            timeout=timeout_s,
            extensions=extensions,
        )
    except httpx.HTTPError as exc:
        elapsed = int((time.perf_counter() - started) * 1000)
        return Attempt(False, None, f"{type(exc).__name__}: {exc}", latency_ms=elapsed)
    elapsed = int((time.perf_counter() - started) * 1000)
    status = response.status_code
    text = response.text[:RESPONSE_BODY_LIMIT]
    if 200 <= status < 300:
        return Attempt(True, status, None, latency_ms=elapsed, response_body=text)
    return Attempt(
        False,
        status,
        f"HTTP {status}",
        permanent=not is_retryable(status),
        retry_after_s=retry_after_s(response.headers.get("retry-after")),
        latency_ms=elapsed,
        response_body=text,
    )
