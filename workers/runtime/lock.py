"""The per-thread lock: runs on one conversation thread never overlap.

A redis-py ``Lock`` (``SET NX PX``; release and extend are Lua scripts that check the token)
named ``crag:lock:{tenant}:{thread}``, with a TTL so a dead worker's lock expires, a watchdog
thread that renews it while the graph runs, and a bounded wait. Pattern after polar's
``Locker`` (context manager, typed timeout error).

A lock whose holder cannot release it must not stall its thread for a whole TTL (a minute by
default). So the token names its holder, ``<job id>@<process id>``, every worker process
keeps a heartbeat key ``crag:alive:<process id>`` (TTL :data:`ALIVE_TTL_S`, renewed every
second), and a job that finds the lock taken judges the holder:

- the holding job has **finished** (its outcome is stored): the lock is stale;
- the holding **process is dead** (no heartbeat: a killed pool process, a lost host): stale;
- otherwise the lock is busy, as before.

A stale lock is broken by compare-and-delete on the holder's token. Breaking is safe even
when the judgement is wrong (a holder alive but cut off from Redis longer than the heartbeat
TTL): the old run fails :meth:`HeldLock.check` before its next checkpoint write, and
Postgres refuses its writes once the new run has claimed the thread's fencing token
(:mod:`workers.db.fencing`). A release that fails because Redis is away is retried by the
heartbeat thread until Redis answers, so a live process never leaves a lock behind either.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from redis import Redis
from redis.exceptions import LockError, LockNotOwnedError, RedisError

from workers.contracts.errors import LockLost, LockTimeout

log = logging.getLogger(__name__)

ALIVE_TTL_S = 5.0
"""Lifetime of a process's heartbeat key, seconds: how soon a dead holder's lock is broken."""

ALIVE_EVERY_S = 1.0
"""How often the heartbeat is renewed (and failed releases retried), seconds."""

_BREAK = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
)
"""Delete a lock only while it still holds the given token (a stale holder's, or ours)."""


def lock_name(tenant_id: str, thread_id: str) -> str:
    """The Redis key of a thread's lock."""
    return f"crag:lock:{tenant_id}:{thread_id}"


def alive_key(process_id: str) -> str:
    """The Redis key of a worker process's heartbeat."""
    return f"crag:alive:{process_id}"


def holder_of(token: str) -> tuple[str, str]:
    """Split a lock token ``<job id>@<process id>`` into its job and process ids."""
    job_id, _, process_id = token.rpartition("@")
    return job_id, process_id


def holding_job(redis: Redis, tenant_id: str, thread_id: str) -> str | None:
    """The job id whose run holds the thread's lock (finished or not), ``None`` when free.

    Raises:
        redis.exceptions.RedisError: Redis could not be reached.
    """
    raw = redis.get(lock_name(tenant_id, thread_id))
    if raw is None:
        return None
    return holder_of(raw.decode() if isinstance(raw, bytes) else str(raw))[0]


class _Heartbeat:
    """This process's heartbeat key and the releases still owed to Redis (one per process)."""

    def __init__(self) -> None:
        self.pid = 0
        self.process_id = ""
        self.redis: Redis | None = None
        self.owed: set[tuple[Redis, str, str]] = set()
        self.guard = threading.Lock()

    def ensure(self, redis: Redis) -> str:
        """Start beating (once per process, again after a fork); returns the process id.

        Raises:
            redis.exceptions.RedisError: The first beat could not be written.
        """
        with self.guard:
            if self.pid != os.getpid():
                self.pid, self.redis, self.owed = os.getpid(), redis, set()
                self.process_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
                self._beat()  # alive before any lock names this process
                threading.Thread(target=self._run, name="crag heartbeat", daemon=True).start()
            return self.process_id

    def owe(self, redis: Redis, name: str, token: str) -> None:
        """Remember a release Redis refused, to retry it on the next beat."""
        with self.guard:
            self.owed.add((redis, name, token))

    def _beat(self) -> None:
        assert self.redis is not None
        self.redis.set(alive_key(self.process_id), b"1", px=int(ALIVE_TTL_S * 1000))

    def _run(self) -> None:
        pid = self.pid
        while pid == os.getpid():
            time.sleep(ALIVE_EVERY_S)
            try:
                self._beat()
                with self.guard:
                    owed = list(self.owed)
                for redis, name, token in owed:
                    redis.eval(_BREAK, 1, name, token)
                    with self.guard:
                        self.owed.discard((redis, name, token))
                    log.info("lock %s released after Redis came back", name)
            except RedisError as exc:
                log.debug("heartbeat: Redis unavailable: %s", exc)


_HEARTBEAT = _Heartbeat()


CONFIRMED_FOR_S = 0.25
"""How long a confirmation of ownership stands for :meth:`HeldLock.check_recent`, seconds."""


class HeldLock:
    """A lock this worker holds; :meth:`check` raises if it was lost meanwhile."""

    def __init__(self, name: str, lost: threading.Event, lock: object) -> None:
        self.name = name
        self._lost = lost
        self._lock = lock
        self._confirmed = time.monotonic()  # acquired just now

    def check_recent(self) -> None:
        """Raise :class:`LockLost` unless the lock was still ours a moment ago.

        Called before every checkpoint write (:class:`workers.runtime.checkpointing.GuardedSaver`):
        like :meth:`check`, but an ownership Redis confirmed within :data:`CONFIRMED_FOR_S`
        is not asked again (a run writes a dozen checkpoints in ~100 ms with an instant
        model). A lock the watchdog found lost raises at once. A run whose lock was taken
        from it may so write for at most that long after its last confirmation; Postgres
        refuses those writes once a newer run holds the thread's fence
        (:mod:`workers.db.fencing`), and :meth:`check` (always asking Redis) still guards
        publishing the outcome.

        Raises:
            LockLost: As :meth:`check`.
        """
        if not self.lost and time.monotonic() - self._confirmed < CONFIRMED_FOR_S:
            return
        self.check()

    @property
    def lost(self) -> bool:
        """True once renewal failed or the token no longer matched."""
        return self._lost.is_set()

    def check(self) -> None:
        """Raise :class:`LockLost` unless the lock is still ours.

        Called before every checkpoint write (:class:`workers.runtime.checkpointing.GuardedSaver`)
        and before publishing. A Redis that cannot answer counts as lost: ownership cannot
        be shown, so the run stops and its retry resumes from the last checkpoint.

        Raises:
            LockLost: The watchdog failed to renew, or Redis says another token holds it
                (or cannot say).
        """
        owned = False
        if not self.lost:
            asked = time.monotonic()
            try:
                owned = bool(self._lock.owned())  # type: ignore[attr-defined]
            except RedisError as exc:
                log.warning("could not check lock %s: %s", self.name, exc)
            if owned:
                self._confirmed = asked
        if not owned:
            self._lost.set()
            raise LockLost(f"lost the lock {self.name} while running")


@contextmanager
def thread_lock(
    redis: Redis,
    tenant_id: str,
    thread_id: str,
    *,
    ttl_s: float,
    owner: str,
    finished: Callable[[str], bool] = lambda _: False,
    wait_s: float = 0,
) -> Iterator[HeldLock]:
    """Hold ``crag:lock:{tenant}:{thread}`` for the duration of the block, for job ``owner``.

    Args:
        redis: A client from the process-wide pool.
        tenant_id: Tenant of the thread.
        thread_id: The conversation thread (tenant-local id).
        ttl_s: Lock lifetime in seconds; renewed every ``ttl_s / 3`` while held.
        owner: The job id of the run.
        finished: Whether a job id has finished (its outcome is stored); a lock held by a
            finished job is stale and is broken instead of waited out.
        wait_s: Longest time to wait for a busy lock, in seconds (0: do not wait).

    Yields:
        A :class:`HeldLock` to :meth:`~HeldLock.check` before writing or publishing.

    Raises:
        LockTimeout: The lock stayed busy for ``wait_s`` seconds.
        redis.exceptions.RedisError: Redis could not be reached.
    """
    name = lock_name(tenant_id, thread_id)
    token = f"{owner}@{_HEARTBEAT.ensure(redis)}"
    lock = redis.lock(name, timeout=ttl_s, blocking_timeout=wait_s, thread_local=False)
    if not lock.acquire(blocking=False, token=token):
        _break_if_stale(redis, name, finished)
        if not lock.acquire(blocking=True, token=token):
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
        except RedisError as exc:
            log.warning("could not release lock %s (retried when Redis answers): %s", name, exc)
            _HEARTBEAT.owe(redis, name, token)


def _break_if_stale(redis: Redis, name: str, finished: Callable[[str], bool]) -> None:
    """Delete the lock if its holder has finished or its process is dead (see module doc)."""
    raw = redis.get(name)
    if raw is None:
        return
    token = raw.decode() if isinstance(raw, bytes) else str(raw)
    job_id, process_id = holder_of(token)
    if finished(job_id):
        why = f"its job {job_id} has finished"
    elif not process_id or not redis.exists(alive_key(process_id)):
        why = f"its process {process_id or '(unknown)'} is gone"
    else:
        return
    if redis.eval(_BREAK, 1, name, token):
        log.warning("lock %s broken: %s", name, why)
