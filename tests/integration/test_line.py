"""A thread's Redis line (:mod:`workers.contracts.line`) against the real Redis."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from workers.contracts.line import ahead_of, join_line, leave_line, line_key

pytestmark = pytest.mark.integration

T0 = (datetime.now(UTC) - timedelta(hours=2)).replace(microsecond=123456)
"""Recent (members older than a day are dropped) and with microseconds, to test exactness."""


def test_a_job_waits_for_every_unfinished_job_submitted_before_it(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    at = {f"j{n}": T0 + timedelta(microseconds=n) for n in range(3)}  # 1 µs apart: exact
    for job_id in ["j2", "j0", "j1"]:  # seen out of order, as retries fire
        join_line(redis_client, "t", thread, job_id, at[job_id])
    done: set[str] = set()

    def first_before(job_id: str) -> str | None:
        return ahead_of(redis_client, "t", thread, job_id, at[job_id], done.__contains__)

    assert [first_before(j) for j in ["j0", "j1", "j2"]] == [None, "j0", "j0"]
    leave_line(redis_client, "t", thread, "j0")
    assert first_before("j2") == "j1"
    done.add("j1")  # finished, but its leave_line was lost: dropped by whoever meets it
    assert first_before("j2") is None
    assert redis_client.zrange(line_key("t", thread), 0, -1) == [b"j2"]
    assert redis_client.ttl(line_key("t", thread)) > 0


def test_rejoining_keeps_the_first_place_and_ties_go_by_job_id(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    join_line(redis_client, "t", thread, "b", T0)
    join_line(redis_client, "t", thread, "b", T0 + timedelta(hours=1))  # a retry: no move
    join_line(redis_client, "t", thread, "a", T0)
    never: Any = lambda _: False  # noqa: E731
    assert ahead_of(redis_client, "t", thread, "b", T0, never) == "a"
    assert ahead_of(redis_client, "t", thread, "a", T0, never) is None


def test_a_member_past_any_deadline_is_dropped(redis_client: Any) -> None:
    thread = uuid.uuid4().hex
    old = datetime.now(UTC) - timedelta(days=2)
    join_line(redis_client, "t", thread, "ancient", old)
    now = datetime.now(UTC)
    join_line(redis_client, "t", thread, "new", now)
    assert ahead_of(redis_client, "t", thread, "new", now, lambda _: False) is None
    assert redis_client.zrange(line_key("t", thread), 0, -1) == [b"new"]
