"""The delivery state machine of one stored outcome: ``pending`` → ``delivered`` | ``dead``.

An outcome with a webhook is stored ``pending`` (the outbox row, :mod:`workers.db.models`).
Each attempt reads what to send in one short transaction, POSTs it with no transaction
open (:func:`workers.delivery.attempt.post_signed`), then records the attempt and the new
state in a second: delivered on a 2xx, dead (with a dead letter naming the URL and the last
error) on a permanent refusal or once the attempts are used up, else still pending with a
retry due. The caller holds the per-outcome guard and schedules the retry; this module
never sleeps and never imports Celery.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy.orm import Session, sessionmaker

from workers.db import repository as repo
from workers.db.engine import transaction
from workers.delivery import attempt as http

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """What one attempt did: the task's ``result``; whether to retry and the receiver's hint.

    ``retry_after_s`` is the receiver's ``Retry-After`` in seconds (``None`` when absent);
    the caller waits at least that long, and at least its own backoff.
    """

    result: dict[str, Any]
    retry: bool = False
    retry_after_s: float | None = field(default=None)


def is_due(sessions: sessionmaker[Session], tenant_id: str, job_id: str) -> bool:
    """Whether the job's outcome is stored and its delivery still ``pending``."""
    with transaction(sessions) as session:
        outcome = repo.get_outcome(session, tenant_id, job_id)
        return outcome is not None and outcome.delivery_status == "pending"


def deliver_once(
    sessions: sessionmaker[Session],
    client: httpx.Client,
    *,
    tenant_id: str,
    job_id: str,
    attempts_before: int,
    max_attempts: int,
    timeout_s: float,
) -> Step:
    """One delivery attempt of a pending outcome; call it under the outcome's guard.

    Args:
        sessions: Database sessions.
        client: The HTTP client (reused across attempts).
        tenant_id: The outcome's tenant.
        job_id: The outcome's job.
        attempts_before: Attempts this delivery made before (the task's retry count).
        max_attempts: Attempts in all before the delivery is dead.
        timeout_s: Per-request timeout, seconds.

    Returns:
        The step: ``delivered``, ``dead_letter``, ``retrying`` (``retry=True``), or, when
        there is nothing to do, ``nothing_to_deliver`` or the state it is already in.

    Raises:
        sqlalchemy.exc.OperationalError: Postgres is unreachable (the caller retries; a
            POST that went out but could not be recorded is sent again, with the same
            webhook id, so the receiver can drop the duplicate).
    """
    with transaction(sessions) as session:
        outcome = repo.get_outcome(session, tenant_id, job_id)
        tenant = repo.get_tenant(session, tenant_id)
        job = repo.get_job(session, tenant_id, job_id)
        if outcome is None or tenant is None or job is None or not job.webhook_url:
            return Step({"status": "nothing_to_deliver"})
        if outcome.delivery_status != "pending":
            return Step({"status": outcome.delivery_status})
        number = repo.count_attempts(session, tenant_id, job_id) + 1
        url, secret, allow = job.webhook_url, tenant.webhook_secret, tenant.webhook_allowlist
        msg_id, body = outcome.webhook_id, outcome.body
    result = http.post_signed(client, url, secret, msg_id, body, timeout_s, allow)
    exhausted = not result.ok and (result.permanent or attempts_before + 1 >= max_attempts)
    with transaction(sessions) as session:
        outcome = repo.get_outcome(session, tenant_id, job_id)
        assert outcome is not None  # outcomes are deleted only with their tenant's data
        repo.record_attempt(
            session,
            outcome,
            url,
            number,
            result.http_status,
            result.error,
            result.latency_ms,
            result.response_body,
        )
        if result.ok:
            repo.set_delivery_status(session, outcome, "delivered")
        elif exhausted:
            repo.set_delivery_status(session, outcome, "dead")
            repo.add_dead_letter(
                session,
                "webhook",
                f"webhook {url} failed {number} times, last: {result.error}",
                body,
                tenant_id,
                job_id,
            )
    if result.ok:
        return Step({"status": "delivered", "attempt": number})
    if exhausted:
        log.error("webhook for job %s dead-lettered: %s", job_id, result.error)
        return Step({"status": "dead_letter", "reason": result.error})
    return Step({"status": "retrying", "attempt": number}, True, result.retry_after_s)


class NotDeliverable(ValueError):
    """An operator asked to redeliver an outcome that cannot be delivered (the message says why)."""


def reopen(sessions: sessionmaker[Session], tenant_id: str, job_id: str) -> str:
    """Put a stored outcome's delivery back to ``pending`` so a delivery task posts it again.

    Used by ``crag deliveries redeliver`` and the console's redeliver button, e.g. after a
    dead letter. The caller sends the delivery task *after* this commits (the task posts
    only a pending outcome). The webhook-id stays the same, so a receiver that got it before
    can tell the redelivery apart (Standard Webhooks' idempotency).

    Returns:
        The outcome's webhook-id.

    Raises:
        NotDeliverable: The job has no stored outcome, or no webhook to deliver to.
    """
    with transaction(sessions) as session:
        outcome = repo.get_outcome(session, tenant_id, job_id)
        job = repo.get_job(session, tenant_id, job_id)
        if outcome is None or job is None:
            raise NotDeliverable(f"job {job_id} of tenant {tenant_id} has no outcome")
        if not job.webhook_url:
            raise NotDeliverable(f"job {job_id} has no webhook to deliver to")
        repo.set_delivery_status(session, outcome, "pending")
        return outcome.webhook_id
