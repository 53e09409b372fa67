"""The per-thread lock against the real Redis: exclusion, bounded wait, renewal, loss, and
judging a lock its holder could not release (broken when the holding process is dead or its
job has finished, waited for otherwise)."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

import workers.runtime.lock as lock_module
from workers.contracts.errors import LockLost, LockTimeout
from workers.runtime.lock import ALIVE_TTL_S, alive_key, holder_of, lock_name, thread_lock

pytestmark = pytest.mark.integration


def test_second_holder_times_out_while_first_holds(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with (
        thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-1", wait_s=1),
        pytest.raises(LockTimeout, match=f"crag:lock:t:{thread} busy"),
        thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-2", wait_s=0.3),
    ):
        pass
    with thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-2", wait_s=1):
        pass  # released on exit, so it can be taken again


def test_watchdog_renews_past_the_ttl(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with thread_lock(redis_client, "t", thread, ttl_s=0.6, owner="job-1", wait_s=1) as held:
        time.sleep(1.5)  # well past the TTL: only renewal keeps it
        held.check()
        assert redis_client.pttl(lock_name("t", thread)) > 0
    assert not redis_client.exists(lock_name("t", thread))


def test_a_lost_lock_is_detected_before_publishing(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-1", wait_s=1) as held:
        redis_client.set(lock_name("t", thread), "someone-else")  # expired and re-taken
        with pytest.raises(LockLost, match="lost the lock"):
            held.check()
        assert held.lost  # once lost, always lost: a later check cannot find it again
    assert redis_client.get(lock_name("t", thread)) == b"someone-else"  # not released by us
    redis_client.delete(lock_name("t", thread))


def test_a_deleted_lock_counts_as_lost(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-1") as held:
        redis_client.delete(lock_name("t", thread))
        with pytest.raises(LockLost):
            held.check()


def test_the_token_names_the_job_and_a_live_process(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    with thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-7"):
        token = redis_client.get(lock_name("t", thread)).decode()
        job_id, process_id = holder_of(token)
        assert job_id == "job-7"
        assert 0 < redis_client.pttl(alive_key(process_id)) <= ALIVE_TTL_S * 1000


def test_a_lock_left_by_a_dead_process_is_broken_at_once(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    name = lock_name("t", thread)
    redis_client.set(name, "job-1@host:4242:deadbeef", px=60_000)  # no heartbeat: dead
    started = time.monotonic()
    with thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-1"):
        assert redis_client.get(name).decode().startswith("job-1@")
    assert time.monotonic() - started < 1  # not the 60 s the key had left
    assert not redis_client.exists(name)


def test_a_live_holder_is_waited_for_and_a_finished_one_is_not(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    name = lock_name("t", thread)
    redis_client.set(alive_key("other:1:cafe"), 1, px=60_000)  # a live process holds it
    redis_client.set(name, "job-1@other:1:cafe", px=60_000)
    asked: list[str] = []

    def finished(job_id: str) -> bool:
        asked.append(job_id)
        return job_id == "job-1"

    with (
        pytest.raises(LockTimeout),
        thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-2", wait_s=0.3),
    ):
        pass  # running, alive: busy
    assert redis_client.get(name) == b"job-1@other:1:cafe"
    # The same holder, once its job has finished (it could not release: Redis was away).
    with thread_lock(redis_client, "t", thread, ttl_s=5, owner="job-2", finished=finished):
        assert redis_client.get(name).decode().startswith("job-2@")
    assert asked == ["job-1"]
    redis_client.delete(alive_key("other:1:cafe"))


def test_a_release_refused_while_redis_is_away_is_retried_when_it_is_back(
    tmp_path: Any,
) -> None:
    from redis import Redis

    from tests.integration.harness import ScratchRedis, wait_until

    server = ScratchRedis(tmp_path)
    server.start()
    client = Redis.from_url(server.url, socket_timeout=1, socket_connect_timeout=1)
    thread = uuid.uuid4().hex
    name = lock_name("t", thread)
    try:
        with thread_lock(client, "t", thread, ttl_s=60, owner="job-1") as held:
            server.stop()  # the AOF keeps the key through the restart
            with pytest.raises(LockLost):
                held.check()  # Redis cannot say: lost
        # The heartbeat retries owed releases on its next beat, which may come the moment
        # Redis is back: holding its guard keeps it from looking while this test does.
        with lock_module._HEARTBEAT.guard:
            server.start()
            assert client.pttl(name) > 10_000  # still there: the release failed
        wait_until(lambda: not client.exists(name), "the owed release", timeout_s=10)
    finally:
        server.stop()
