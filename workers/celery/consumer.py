"""Celery's consumer, with every message it would discard turned into a dead letter.

Celery logs and drops a message whose body cannot be decoded, whose task is unknown, or
that is otherwise invalid. Here each of those also sends a ``crag.record_dead_letter`` task
(to the queue the message came from) that records it with the reason, so nothing an
upstream system enqueued disappears silently. Selected with Celery's ``worker_consumer``.
"""

from __future__ import annotations

import logging
from typing import Any

from celery.worker.consumer import Consumer
from kombu.message import Message

from workers.celery.broker import RAW_LIMIT
from workers.contracts.names import DEAD_LETTER_TASK

log = logging.getLogger(__name__)


def _raw(message: Message, body: Any = None) -> str:
    payload = message.body if body is None else body
    if isinstance(payload, bytes):
        return payload.decode("utf-8", "replace")[:RAW_LIMIT]
    return repr(payload)[:RAW_LIMIT]


class DeadLetteringConsumer(Consumer):  # type: ignore[misc]
    """A :class:`celery.worker.consumer.Consumer` that dead-letters what it refuses."""

    def _dead_letter(self, message: Message, reason: str, body: Any = None) -> None:
        queue = (message.delivery_info or {}).get("routing_key") or self.app.conf.task_default_queue
        try:
            self.app.send_task(
                DEAD_LETTER_TASK, args=["message", reason, _raw(message, body)], queue=queue
            )
        except Exception:  # the broker is down: say so loudly; Celery still logs the message
            log.critical("could not dead-letter a refused message (%s)", reason, exc_info=True)

    def on_decode_error(self, message: Message, exc: Exception) -> None:
        """Dead-letter a message whose body cannot be decoded, then let Celery ack it."""
        self._dead_letter(message, f"message body cannot be decoded: {exc}")
        super().on_decode_error(message, exc)

    def on_unknown_message(self, body: Any, message: Message) -> None:
        """Dead-letter a message that is not a task message."""
        self._dead_letter(message, "message is not a task message", body)
        super().on_unknown_message(body, message)

    def on_unknown_task(self, body: Any, message: Message, exc: Exception) -> None:
        """Dead-letter a message naming a task this fleet does not have."""
        name = (message.headers or {}).get("task")
        self._dead_letter(message, f"unknown task {name!r}", body)
        super().on_unknown_task(body, message, exc)

    def on_invalid_task(self, body: Any, message: Message, exc: Exception) -> None:
        """Dead-letter a task message Celery cannot run."""
        self._dead_letter(message, f"invalid task message: {exc}", body)
        super().on_invalid_task(body, message, exc)
