"""The names producers and workers share: Celery task names and Redis channels.

One module owns each name; the broker, the app's routes, the tasks, the producer client
and the waiter all import it from here, so a producer never builds the worker's Celery app
to learn a task name.
"""

from __future__ import annotations

ANSWER_TASK = "crag.answer_question"
"""Answer one job: the only argument is the signed job object."""

DEAD_LETTER_TASK = "crag.record_dead_letter"
"""Record a message the broker or the consumer refused: ``(kind, reason, payload)``."""

DELIVER_TASK = "crag.deliver_outcome"
"""POST a stored outcome to its webhook: ``(tenant_id, job_id)``."""

SWEEP_TASK = "crag.retention_sweep"
"""Delete data past each tenant's retention (Celery beat)."""


def outcome_channel(tenant_id: str, job_id: str) -> str:
    """Redis pub/sub channel announcing that a job ended (outcome or dead letter)."""
    return f"crag:outcome:{tenant_id}:{job_id}"
