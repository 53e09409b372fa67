"""The per-thread lock: runs on one conversation thread never overlap.

A redis-py ``Lock`` (``SET NX PX`` with a random token; release and extend are Lua scripts
that check the token) named ``crag:lock:{tenant}:{thread}``, with a TTL so a dead worker's
lock expires, a watchdog thread that renews it while the graph runs, and a bounded wait.
Pattern after polar's ``Locker`` (context manager, typed timeout error).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from redis import Redis
from redis.exceptions import LockError, LockNotOwnedError, RedisError

from workers.errors import LockLost, LockTimeout

log = logging.getLogger(__name__)


def lock_name(tenant_id: str, thread_id: str) -> str:
    """The Redis key of a thread's lock."""
    return f"crag:lock:{tenant_id}:{thread_id}"


class HeldLock:
    """A lock this worker holds; :meth:`check` raises if it was lost meanwhile."""

    def __init__(self, name: str, lost: threading.Event, lock: object) -> None:
        self.name = name
        self._lost = lost
        self._lock = lock

    @property
    def lost(self) -> bool:
        """True once renewal failed or the token no longer matches."""
        return self._lost.is_set()

    def check(self) -> None:
        """Raise :class:`LockLost` unless the lock is still ours (call before publishing).

        Raises:
            LockLost: The watchdog failed to renew, or Redis says another token holds it.
        """
        owned = False
        try:
            owned = bool(self._lock.owned())  # type: ignore[attr-defined]
        except RedisError as exc:
            log.warning("could not check lock %s: %s", self.name, exc)
        if self.lost or not owned:
            raise LockLost(f"lost the lock {self.name} while running")


@contextmanager
def thread_lock(
    redis: Redis, tenant_id: str, thread_id: str, *, ttl_s: float, wait_s: float = 0
) -> Iterator[HeldLock]:
    """Hold ``crag:lock:{tenant}:{thread}`` for the duration of the block.

    Args:
        redis: A client from the process-wide pool.
        tenant_id: Tenant of the thread.
        thread_id: The conversation thread (tenant-local id).
        ttl_s: Lock lifetime in seconds; renewed every ``ttl_s / 3`` while held.
        wait_s: Longest time to wait for a busy lock, in seconds (0: do not wait).

    Yields:
        A :class:`HeldLock` to :meth:`~HeldLock.check` before publishing.

    Raises:
        LockTimeout: The lock stayed busy for ``wait_s`` seconds.
    """
    name = lock_name(tenant_id, thread_id)
    lock = redis.lock(name, timeout=ttl_s, blocking_timeout=wait_s, thread_local=False)
    if not lock.acquire(blocking=True):
        raise LockTimeout(f"thread lock {name} busy for {wait_s:.0f}s", tenant_id=tenant_id)
    lost, stop = threading.Event(), threading.Event()

    def renew() -> None:
        while not stop.wait(ttl_s / 3):
            try:
                lock.extend(ttl_s, replace_ttl=True)
            except (LockNotOwnedError, LockError, RedisError) as exc:
                log.error("lock %s lost: %s", name, exc)
                lost.set()
                return

    watchdog = threading.Thread(target=renew, name=f"renew {name}", daemon=True)
    watchdog.start()
    try:
        yield HeldLock(name, lost, lock)
    finally:
        stop.set()
        watchdog.join()
        try:
            lock.release()
        except (LockNotOwnedError, LockError) as exc:
            log.warning("lock %s was not ours at release: %s", name, exc)
