"""The per-thread lock against the real Redis: exclusion, bounded wait, renewal, loss."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from workers.errors import LockLost, LockTimeout
from workers.lock import lock_name, thread_lock

pytestmark = pytest.mark.integration


def test_second_holder_times_out_while_first_holds(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with (
        thread_lock(redis_client, "t", thread, ttl_s=5, wait_s=1),
        pytest.raises(LockTimeout, match=f"crag:lock:t:{thread} busy"),
        thread_lock(redis_client, "t", thread, ttl_s=5, wait_s=0.3),
    ):
        pass
    with thread_lock(redis_client, "t", thread, ttl_s=5, wait_s=1):
        pass  # released on exit, so it can be taken again


def test_watchdog_renews_past_the_ttl(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with thread_lock(redis_client, "t", thread, ttl_s=0.6, wait_s=1) as held:
        time.sleep(1.5)  # well past the TTL: only renewal keeps it
        held.check()
        assert redis_client.pttl(lock_name("t", thread)) > 0
    assert not redis_client.exists(lock_name("t", thread))


def test_a_lost_lock_is_detected_before_publishing(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with thread_lock(redis_client, "t", thread, ttl_s=5, wait_s=1) as held:
        redis_client.set(lock_name("t", thread), "someone-else")  # expired and re-taken
        with pytest.raises(LockLost, match="lost the lock"):
            held.check()
    assert redis_client.get(lock_name("t", thread)) == b"someone-else"  # not released by us
    redis_client.delete(lock_name("t", thread))
