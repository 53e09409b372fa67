"""Signed jobs: what verifies, and the reason each bad job is refused with."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from workers.contracts.errors import PermanentJobError
from workers.contracts.signing import TOLERANCE_S, sign_job, verify_job
from workers.core.tenants import new_submission_key

KEY, OTHER = new_submission_key(), new_submission_key()
JOB = {"job_id": "j-1", "tenant_id": "acme", "thread_id": "t", "question": "Héllo?"}
NOW = 1_800_000_000


def test_a_signed_job_verifies_and_the_scheme_is_the_documented_one() -> None:
    signed = sign_job(JOB, KEY, at=NOW)
    verify_job(signed, KEY, "acme", now=NOW + 10)
    # Recomputed by hand, as a producer in another language would.
    unsigned = {k: v for k, v in signed.items() if k != "signature"}
    canonical = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    mac = hmac.new(base64.b64decode(KEY[4:]), canonical.encode(), hashlib.sha256).digest()
    assert signed["signature"] == "v1," + base64.b64encode(mac).decode()


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (lambda j: j | {"tenant_id": "globex"}, "does not verify"),
        (lambda j: j | {"question": "Other?"}, "does not verify"),
        (lambda j: j | {"signed_at": NOW + 1}, "does not verify"),
        (lambda j: {k: v for k, v in j.items() if k != "signature"}, "not signed"),
        (lambda j: sign_job(JOB, OTHER, at=NOW), "does not verify"),
        (lambda j: sign_job(JOB, KEY, at=NOW - TOLERANCE_S - 1), "stale job"),
        (lambda j: sign_job(JOB, KEY, at=NOW + TOLERANCE_S + 1), "stale job"),
    ],
)
def test_forged_altered_unsigned_and_stale_jobs_are_refused(tamper, reason) -> None:  # type: ignore[no-untyped-def]
    body = tamper(sign_job(JOB, KEY, at=NOW))
    with pytest.raises(PermanentJobError, match=reason):
        verify_job(body, KEY, "acme", now=NOW)
