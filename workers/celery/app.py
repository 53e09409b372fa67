"""The Celery app (``celery -A workers.celery.app worker``; ``crag worker`` wraps it).

At-least-once intake: late acknowledgement, a worker lost mid-task puts its message back,
one message prefetched per process, JSON only. Per-process resources are built after the
fork (``worker_process_init``), never at import.
"""

from __future__ import annotations

import logging
from functools import cached_property
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown

from workers.contracts.names import ANSWER_TASK, DEAD_LETTER_TASK, DELIVER_TASK, SWEEP_TASK
from workers.settings import Settings, get_settings

log = logging.getLogger(__name__)


LEASE_RENEW_S = 10
"""How often a worker renews the leases of the messages it holds and looks for lapsed ones
(kombu's ``unacked_restore_interval``), seconds."""


def celery_config(settings: Settings) -> dict[str, Any]:
    """Celery settings derived from ours."""
    return {
        "broker_url": settings.redis_url,
        # Redis transport and consumer that dead-letter, rather than drop, what they refuse.
        "broker_transport": "workers.celery.broker:Transport",
        "worker_consumer": "workers.celery.consumer:DeadLetteringConsumer",
        "broker_connection_retry_on_startup": True,
        # Held messages' leases are renewed every restore interval (workers/celery/broker.py), so
        # the visibility timeout only covers missed renewals: a lost host's jobs come back
        # after visibility_timeout + unacked_restore_interval.
        "broker_transport_options": {
            "visibility_timeout": settings.visibility_timeout_s,
            "unacked_restore_interval": LEASE_RENEW_S,
            "unacked_restore_throttle": 1,
        },
        "task_serializer": "json",
        "accept_content": ["json"],
        "task_ignore_result": True,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        # A replacement pool process (after a crash or kill -9) loads the whole stack first.
        "worker_proc_alive_timeout": settings.worker_start_timeout_s,
        # SIGTERM → soft shutdown (see `crag worker`): finish within the grace, else requeue.
        "worker_soft_shutdown_timeout": settings.shutdown_grace_s,
        "task_default_queue": settings.queue,
        "task_routes": {
            DEAD_LETTER_TASK: {"queue": settings.queue},
            ANSWER_TASK: {"queue": settings.queue},
            DELIVER_TASK: {"queue": settings.delivery_queue},
            SWEEP_TASK: {"queue": settings.delivery_queue},
        },
        # `crag beat` (one per fleet) schedules the retention sweep.
        "beat_schedule": {
            "retention-sweep": {
                "task": SWEEP_TASK,
                "schedule": settings.retention_sweep_interval_s,
            }
        },
        "worker_hijack_root_logger": False,
    }


class CragCelery(Celery):
    """The app: soft shutdown ends with its jobs (:mod:`workers.runtime.shutdown`)."""

    @cached_property
    def Worker(self) -> Any:
        """The worker class ``celery worker`` runs."""
        from workers.runtime.shutdown import PromptShutdownWorker

        return self.subclass_with_self(PromptShutdownWorker)


def make_celery(settings: Settings) -> Celery:
    """Create the app and register the tasks."""
    app = CragCelery("crag", set_as_current=True)
    app.conf.update(celery_config(settings))
    app.autodiscover_tasks(["workers.celery"], related_name="tasks", force=True)
    return app


def producer_app(settings: Settings) -> Celery:
    """An app that only sends messages to the broker of ``settings`` (not made current).

    For processes that enqueue but run no task: the console, ``crag eval``, benchmarks.
    """
    producer = Celery("crag-producer", set_as_current=False)
    producer.conf.update(celery_config(settings))
    return producer


app = make_celery(get_settings())


@worker_process_init.connect
def _init_process(**_: Any) -> None:
    from workers.runtime.resources import get_resources
    from workers.runtime.telemetry import setup_tracing

    settings = get_settings()
    setup_tracing(settings.service_name, settings.otlp_endpoint, console=settings.trace_console)
    get_resources(settings)  # pay pools, graph and model loads before the first job
    log.info("worker process ready")


@worker_process_shutdown.connect
def _close_process(**_: Any) -> None:
    from workers.runtime.resources import close_resources

    close_resources()
