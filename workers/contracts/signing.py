"""Signed jobs: producers sign each job with their tenant's submission key.

The signature covers the whole job as sent (every field but ``signature``, including
``signed_at``), in a canonical JSON form, so neither the tenant nor the question nor the
webhook can be changed in transit, and the tenant a job runs for is the one whose key
verifies it, never something read from the question. The scheme follows Standard
Webhooks' (https://www.standardwebhooks.com) HMAC-SHA256 signatures:

- ``signed_at``: Unix seconds when signed; jobs older (or newer) than the tolerance are
  refused as stale, which bounds replays of a captured job (and a replay of a job already
  seen is a no-op: its job_id is the idempotency key).
- ``signature``: ``v1,`` + base64 of HMAC-SHA256 over the canonical body, keyed with the
  tenant's ``csk_…`` key (its bytes after the prefix, base64-decoded).
- canonical body: JSON with sorted keys, ``(",", ":")`` separators, UTF-8, no ASCII
  escaping (``json.dumps(job, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

from workers.contracts.errors import PermanentJobError

TOLERANCE_S = 300
"""How far ``signed_at`` may be from now, seconds (as Standard Webhooks' timestamps)."""


def canonical(job: dict[str, Any]) -> bytes:
    """The bytes that are signed: the job without ``signature``, in canonical JSON."""
    unsigned = {k: v for k, v in job.items() if k != "signature"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _key_bytes(key: str) -> bytes:
    return base64.b64decode(key.removeprefix("csk_"))


def signature(job: dict[str, Any], key: str) -> str:
    """``v1,<base64 HMAC-SHA256>`` of the canonical job under ``key``."""
    digest = hmac.new(_key_bytes(key), canonical(job), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def sign_job(job: dict[str, Any], key: str, at: int | None = None) -> dict[str, Any]:
    """A copy of ``job`` (JSON-ready dict) with ``signed_at`` and ``signature`` set."""
    signed = {k: v for k, v in job.items() if k not in ("signature", "signed_at")}
    signed["signed_at"] = int(time.time()) if at is None else at
    signed["signature"] = signature(signed, key)
    return signed


def verify_job(body: dict[str, Any], key: str, tenant_id: str, now: float | None = None) -> None:
    """Check that ``body`` was signed with ``key`` within the tolerance.

    Raises:
        PermanentJobError: No signature, a signature that does not verify (forged, altered
            or signed with another tenant's key), or ``signed_at`` outside the tolerance.
    """
    job_id = body.get("job_id") if isinstance(body.get("job_id"), str) else None
    given, signed_at = body.get("signature"), body.get("signed_at")
    if not isinstance(given, str) or not isinstance(signed_at, int):
        raise PermanentJobError(
            "job is not signed: 'signed_at' and 'signature' are required"
            " (see workers/contracts/signing.py)",
            job_id=job_id,
            tenant_id=tenant_id,
        )
    if not hmac.compare_digest(given.encode(), signature(body, key).encode()):
        raise PermanentJobError(
            f"job signature does not verify with tenant {tenant_id!r}'s submission key "
            "(forged, altered in transit, signed with another key, or serialised differently "
            "from json.dumps(job, sort_keys=True, separators=(',', ':'), ensure_ascii=False))",
            job_id=job_id,
            tenant_id=tenant_id,
        )
    age = (time.time() if now is None else now) - signed_at
    if abs(age) > TOLERANCE_S:
        when = f"{age:.0f}s ago" if age > 0 else f"{-age:.0f}s in the future"
        raise PermanentJobError(
            f"stale job: signed {when}, outside the {TOLERANCE_S}s tolerance",
            job_id=job_id,
            tenant_id=tenant_id,
        )
