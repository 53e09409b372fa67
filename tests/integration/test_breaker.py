"""The per-model circuit breaker on the real Redis, and the graph skipping an open model."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.accounting import calls_by_kind
from pipeline.deps import Models
from pipeline.standing import spent
from tests.fakes.chat import ScriptedChatModel, grade_by_keyword
from tests.integration.graph_helpers import answer, make_deps, route, run_turn, verdict
from workers.runtime.breaker import RedisCircuitBreaker

pytestmark = pytest.mark.integration


@pytest.fixture
def breaker(redis_client: Any) -> Iterator[RedisCircuitBreaker]:
    yield RedisCircuitBreaker(redis_client, failures=3, window_s=10, cooldown_s=0.5, probe_ttl_s=5)
    for key in redis_client.scan_iter(match="crag:breaker:m-*"):
        redis_client.delete(key)


def model() -> str:
    return f"m-{uuid.uuid4().hex[:8]}"


def test_opens_after_failures_then_lets_one_probe_through(breaker: RedisCircuitBreaker) -> None:
    m = model()
    for _ in range(2):
        breaker.record(m, ok=False)
    assert breaker.allow(m) and breaker.state(m) == "closed"
    breaker.record(m, ok=False)  # the third outage within the window
    assert breaker.state(m) == "open" and not breaker.allow(m)
    time.sleep(0.6)  # the cool-down passes
    assert breaker.state(m) == "half_open"
    assert breaker.allow(m)  # the one probe
    assert not breaker.allow(m)  # everyone else keeps skipping
    breaker.record(m, ok=True)
    assert breaker.state(m) == "closed" and breaker.allow(m)


def test_a_failed_probe_opens_it_again(breaker: RedisCircuitBreaker) -> None:
    m = model()
    for _ in range(3):
        breaker.record(m, ok=False)
    time.sleep(0.6)
    assert breaker.allow(m)
    breaker.record(m, ok=False)
    assert breaker.state(m) == "open"


def test_graph_skips_a_model_whose_circuit_is_open(
    breaker: RedisCircuitBreaker, es: Any, corpus_tenant: str, redactor: Any, settings: Any
) -> None:
    primary = ScriptedChatModel(script={}, model_name=model())  # fails the test if called
    for _ in range(3):
        breaker.record(primary.model_name, ok=False)
    backup = ScriptedChatModel(
        script={
            "router": [route("vectorstore")],
            "grader": grade_by_keyword("newton metres"),
            "generator": [answer(("The fastener needs 12 newton metres.", [1]))],
            "verifier": [verdict(True)],
        },
        model_name="backup",
    )
    deps = make_deps(
        es,
        corpus_tenant,
        Models.single(primary, fallbacks=(backup,)),
        redactor,
        index_prefix=settings.index_prefix,
        breaker=breaker,
    )
    state = run_turn(deps, "What torque does the rotor shaft fastener need?")

    assert state["outcome"]["status"] == "answered"
    assert primary.calls == []
    hops = [c for c in state["calls"] if c["error"] == "CircuitOpen"]
    assert hops and {c["model"] for c in hops} == {primary.model_name}
    assert spent(state) == len(state["calls"]) - len(hops)  # a skip costs no call
    assert sum(calls_by_kind(state["calls"]).values()) == spent(state)
