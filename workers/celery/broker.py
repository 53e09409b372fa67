"""The Redis broker transport, hardened so no message can be dropped or crash a worker.

kombu's Redis transport decodes each popped message as a Celery envelope; a message that
is not JSON, or JSON that is not an envelope, raises inside the consumer loop and stops the
worker, and the message is gone. This transport instead turns:

- a bare job object (``{"job_id": …, "question": …}``: the likeliest thing a non-Python
  producer pushes) into a proper ``crag.answer_question`` message, and
- anything else into a ``crag.record_dead_letter`` message carrying the raw text and why it
  was refused, so it ends as a dead letter with its reason.

It renews a lease on every message a worker holds (:class:`QoS`), so a lost worker host's
jobs come back in minutes rather than after an hour-long visibility timeout.

It also keeps messages a worker held when Redis went away. On a lost connection kombu
puts the worker's unacknowledged messages back on their queues, but Redis is down at that
moment, so the restore fails and kombu forgets them: they would sit in the ``unacked`` hash
until the visibility timeout (an hour) and kombu's throttled scan bring them back. Here the
failed restore remembers their delivery tags, and the next channel, once Redis answers
again, puts them back on their queues at once (an idempotent move; a message acknowledged
meanwhile is simply no longer there).

Selected with Celery's ``broker_transport`` setting (see :mod:`workers.celery.app`).
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
import uuid
from typing import Any

from kombu.transport import redis as kombu_redis
from kombu.utils.encoding import bytes_to_str

from workers.contracts.names import ANSWER_TASK, DEAD_LETTER_TASK

log = logging.getLogger(__name__)

RAW_LIMIT = 64 * 1024
"""Characters of a refused message kept in its dead letter."""

_ENVELOPE_KEYS = ("body", "headers", "properties")


def envelope(task: str, args: list[Any], queue: str) -> dict[str, Any]:
    """A Celery protocol-2 message for ``task(*args)`` as the Redis transport stores it."""
    message_id = str(uuid.uuid4())
    body = [args, {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]
    return {
        "body": base64.b64encode(json.dumps(body).encode()).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py",
            "task": task,
            "id": message_id,
            "root_id": message_id,
            "parent_id": None,
            "group": None,
            "retries": 0,
        },
        "properties": {
            "correlation_id": message_id,
            "delivery_mode": 2,
            "priority": 0,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    }


def coerce_message(raw: str, queue: str) -> dict[str, Any]:
    """Return a deliverable Celery message for whatever was popped from ``queue``.

    Args:
        raw: The list item exactly as stored in Redis.
        queue: The queue (Redis list) it came from.

    Returns:
        The message itself when it is a Celery envelope; an ``answer_question`` message for
        a bare job object; a ``record_dead_letter`` message otherwise.
    """
    try:
        decoded = json.loads(raw)
    except ValueError as exc:
        return _refused(raw, queue, f"message is not JSON: {exc}")
    if not isinstance(decoded, dict):
        return _refused(raw, queue, f"message must be a JSON object, got {type(decoded).__name__}")
    if all(key in decoded for key in _ENVELOPE_KEYS) and isinstance(decoded["properties"], dict):
        problem = _envelope_problem(decoded)
        if problem:
            return _refused(raw, queue, problem)
        decoded["properties"].setdefault("delivery_tag", str(uuid.uuid4()))
        return decoded
    if "job_id" in decoded or "question" in decoded:
        return envelope(ANSWER_TASK, [decoded], queue)
    return _refused(raw, queue, "message is neither a Celery message nor a job object")


def _envelope_problem(message: dict[str, Any]) -> str | None:
    """What would make kombu fail on this envelope before Celery sees it, if anything."""
    if not isinstance(message["headers"], dict):
        return "message headers must be an object"
    if message["properties"].get("body_encoding") == "base64":
        try:
            base64.b64decode(str(message["body"]), validate=True)
        except ValueError as exc:
            return f"message body is not valid base64: {exc}"
    return None


def _refused(raw: str, queue: str, reason: str) -> dict[str, Any]:
    return envelope(
        DEAD_LETTER_TASK, ["message", f"{reason} (queue {queue})", raw[:RAW_LIMIT]], queue
    )


_orphans: set[str] = set()
"""Delivery tags whose restore failed because Redis was unreachable (this process)."""
_orphans_lock = threading.Lock()


class QoS(kombu_redis.QoS):
    """kombu's Redis QoS with leases on held messages, remembering failed restores.

    **Restores.** What it could not restore while Redis was down is put back on reconnect.

    **Leases.** kombu redelivers an unacknowledged message once its ``unacked_index`` score
    (the time it was delivered) is older than the visibility timeout, so that timeout had to
    exceed the longest run (an hour), and a lost worker host left its jobs for that long.
    Here the worker's main process renews the score of every message it holds (running or
    reserved) each time kombu's restore timer fires (``unacked_restore_interval``), so the
    timeout only has to cover a missed renewal: a live worker's messages are never
    redelivered, and a lost host's come back after the visibility timeout plus one restore
    interval (:func:`workers.celery.app.celery_config`).
    """

    def restore_visible(self, start: int = 0, num: int = 10, interval: int = 10) -> None:
        """Renew this worker's leases, then restore messages whose lease lapsed (kombu)."""
        self.renew_leases()
        super().restore_visible(start, num, interval)

    def renew_leases(self) -> int:
        """Set the ``unacked_index`` score of every message this channel holds to now.

        Only tags still in the index are touched (``ZADD XX``): one acknowledged meanwhile
        is not brought back. Returns how many tags were renewed; Redis errors are logged
        (the next timer tick tries again).
        """
        delivered: Any = self._delivered
        tags = list(delivered)
        if not tags:
            return 0
        now = time.time()
        try:
            with self.channel.conn_or_acquire() as client:
                client.zadd(self.unacked_index_key, dict.fromkeys(tags, now), xx=True)
        except self.channel.connection_errors as exc:
            log.warning("could not renew the leases of %d message(s): %s", len(tags), exc)
            return 0
        return len(tags)

    def restore_unacked(self, client: Any = None) -> None:
        """Restore this channel's unacknowledged messages, or remember them for later."""
        try:
            super().restore_unacked(client)
        except self.channel.connection_errors as exc:
            delivered: Any = self._delivered
            with _orphans_lock:
                _orphans.update(delivered)
            log.warning(
                "could not restore %d unacknowledged message(s) (%s); will on reconnect",
                len(delivered),
                exc,
            )
            delivered.clear()


class Channel(kombu_redis.Channel):
    """kombu's Redis channel with :func:`coerce_message` between BRPOP and delivery.

    It also restores the messages a lost connection left behind (see the module docstring).
    """

    QoS = QoS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.restore_orphans()

    def restore_orphans(self) -> int:
        """Put messages whose restore failed back on their queues; returns how many."""
        with _orphans_lock:
            tags = list(_orphans)
        if not tags:
            return 0
        try:
            with self.conn_or_acquire() as client:
                for tag in tags:
                    self.qos.restore_by_tag(tag, client=client)
        except self.connection_errors as exc:
            log.warning("restoring %d message(s) failed again: %s", len(tags), exc)
            return 0
        with _orphans_lock:
            _orphans.difference_update(tags)
        log.warning("restored %d message(s) left unacknowledged by a lost connection", len(tags))
        return len(tags)

    def _brpop_read(self, **options: Any) -> bool:
        # Same as kombu 5.7's Channel._brpop_read, except for the coerce_message call.
        try:
            try:
                dest__item = self.client.parse_response(self.client.connection, "BRPOP", **options)
            except self.connection_errors:
                self.client.connection.disconnect()
                raise
            if dest__item:
                dest, item = dest__item
                dest = bytes_to_str(dest).rsplit(self.sep, 1)[0]
                self._queue_cycle.rotate(dest)
                self.connection._deliver(coerce_message(bytes_to_str(item), dest), dest)
                return True
            raise kombu_redis.Empty()
        finally:
            self._in_poll = None  # type: ignore[assignment]
            self._flush_brpop_reauth()


class Transport(kombu_redis.Transport):
    """Redis transport using :class:`Channel`."""

    Channel = Channel
