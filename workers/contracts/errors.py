"""What can go wrong with a job, by what to do about it.

- :class:`TransientJobError`: retry with backoff and jitter (a service blinked, a lock is busy).
- :class:`PermanentJobError`: dead-letter with the reason (bad payload, unknown tenant).
- Anything else is a bug: it fails loudly; the task boundary still records the job as
  failed and dead-letters it, so nothing is dropped, but it is never retried into silence.
"""

from __future__ import annotations


class JobError(Exception):
    """Base class; carries the ids the error is about."""

    def __init__(
        self, message: str, *, job_id: str | None = None, tenant_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.tenant_id = tenant_id


class TransientJobError(JobError):
    """Retry later: the cause is expected to pass."""


class PermanentJobError(JobError):
    """Do not retry: dead-letter the job with this error's message as the reason."""


class LockTimeout(TransientJobError):
    """The thread's lock stayed busy longer than the wait bound."""


class LockLost(TransientJobError):
    """The lock expired or was taken over while the graph ran; nothing was published."""
