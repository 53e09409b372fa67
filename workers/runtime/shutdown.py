"""Soft shutdown that ends when the running jobs end, not when the grace period does.

``crag worker`` maps SIGTERM to Celery's soft shutdown: running tasks get
``worker_soft_shutdown_timeout`` (``CRAG_SHUTDOWN_GRACE_S``) to finish, and whatever still
runs is then handed back to the queue. Celery (5.5) sleeps that whole period even when the
tasks end sooner, so a rolling update waited the full grace on every worker. This worker
polls instead, and stops waiting as soon as no task runs.

The MainProcess cannot see a task end while it waits (the soft-shutdown wait runs in its
signal handler, so its event loop, which reads results from the pool, is stopped). So the
pool processes count their running tasks in a shared-memory counter, created in the
MainProcess before the pool forks (:data:`RUNNING`), with ``task_prerun``/``task_postrun``.
A pool process killed mid-task leaves the count high: the wait then lasts the full grace,
as before. A message whose task ended but whose acknowledgement the stopped loop did not
send goes back to the queue and finds its outcome stored (a no-op by design).
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from typing import Any

from celery.apps.worker import Worker
from celery.signals import task_postrun, task_prerun
from celery.worker import state

log = logging.getLogger(__name__)

POLL_S = 0.1
"""How often the wait looks at the count, seconds."""

RUNNING: Any = multiprocessing.Value("i", 0)
"""Tasks running in this worker's pool processes (shared memory, inherited at fork)."""

STOPPING: Any = multiprocessing.Value("b", 0)
"""Set when the soft shutdown starts (shared memory): a task then takes no more work."""


def stopping() -> bool:
    """Whether this worker's soft shutdown has begun (readable in its pool processes)."""
    return bool(STOPPING.value)


@task_prerun.connect
def _started(**_: Any) -> None:
    with RUNNING.get_lock():
        RUNNING.value += 1


@task_postrun.connect
def _ended(**_: Any) -> None:
    with RUNNING.get_lock():
        RUNNING.value = max(0, RUNNING.value - 1)


class PromptShutdownWorker(Worker):  # type: ignore[misc]
    """A Celery worker whose soft shutdown ends as soon as its running tasks end."""

    def wait_for_soft_shutdown(self) -> None:
        """Wait up to ``worker_soft_shutdown_timeout`` seconds, while a task still runs."""
        STOPPING.value = 1  # a task that drains its thread's line stops taking its next job
        timeout = float(self.app.conf.worker_soft_shutdown_timeout or 0)
        if timeout <= 0 or not (state.active_requests or RUNNING.value):
            return
        log.warning("soft shutdown: waiting up to %.0fs for running jobs to end", timeout)
        started = time.monotonic()
        while RUNNING.value > 0 and time.monotonic() - started < timeout:
            time.sleep(POLL_S)
        waited = time.monotonic() - started
        if RUNNING.value > 0:
            log.warning("soft shutdown: %d job(s) still running after %.1fs: handed back",
                        RUNNING.value, waited)  # fmt: skip
        else:
            log.warning("soft shutdown: running jobs ended after %.1fs", waited)
