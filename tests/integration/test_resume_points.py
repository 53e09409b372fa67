"""A worker that dies after any checkpoint write of a turn: its retry gives the job its own
turn, once, and the thread's earlier turns stay (real Postgres checkpointer, in process).

The death is simulated at every write boundary of a turn in turn: the run's checkpoint
guard lets the first ``k`` writes through and refuses every later one, so Postgres holds
exactly what a worker killed after its ``k``-th write would have left. The drain-kill burst
(``test_faults.py``) found one such point by chance (a kill 44 ms into a job, just after
the input checkpoint and its first task's writes); this walks them all.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from workers.contracts.errors import LockLost
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.runner import run_graph
from workers.runtime.resources import Resources

pytestmark = pytest.mark.integration

FIRST_Q = "What torque does the rotor shaft fastener need?"
SECOND_Q = "What torque does the rotor shaft fastener need after a rebuild?"
THIRD_Q = "What torque does the rotor shaft fastener need in winter?"


class DiesAfter:
    """A checkpoint guard that lets ``writes`` writes through, then refuses every later one
    (the worker is dead: nothing more of its run reaches Postgres). Counts the writes asked."""

    def __init__(self, writes: float) -> None:
        self.left = writes
        self.asked = 0
        self._guard = threading.Lock()  # parallel graders write from LangGraph's threads

    def check(self) -> None:
        with self._guard:
            self.asked += 1
            if self.left <= 0:
                raise LockLost("the worker died")
            self.left -= 1

    def check_recent(self) -> None:
        self.check()


@pytest.fixture(scope="module")
def resources(settings: Any, migrated_db: str, corpus_tenant: str) -> Iterator[Resources]:
    res = Resources.create(settings, models=Models.single(torque_model()))
    yield res
    res.close()


def _questions(resources: Resources, graph_thread_id: str) -> list[str]:
    state = resources.graph.get_state({"configurable": {"thread_id": graph_thread_id}}).values
    return [turn["question"] for turn in state.get("history", [])]


def test_a_second_turn_killed_after_any_write_is_answered_as_its_own_turn_once(
    resources: Resources, corpus_tenant: str
) -> None:
    ctx = context_of(resources)
    counting = DiesAfter(float("inf"))
    first = new_job(corpus_tenant, f"th-{uuid.uuid4().hex[:8]}", FIRST_Q)
    run_graph(first, ctx)
    run_graph(new_job(corpus_tenant, first.thread_id, SECOND_Q), ctx, guard=counting)
    writes = counting.asked
    assert writes >= 10, writes  # a turn writes a checkpoint per super-step, and task writes

    resumed: dict[int, bool] = {}
    for k in range(1, writes):
        thread = f"th-{uuid.uuid4().hex[:8]}"
        run_graph(new_job(corpus_tenant, thread, FIRST_Q), ctx)
        second = new_job(corpus_tenant, thread, SECOND_Q)
        with pytest.raises(LockLost):  # the attempt dies; what it wrote is all Postgres has
            run_graph(second, ctx, guard=DiesAfter(k))

        retry = run_graph(second, ctx)
        # The next job's new input would drop writes no checkpoint holds: only a turn that
        # was really checkpointed survives it.
        run_graph(new_job(corpus_tenant, thread, THIRD_Q), ctx)

        assert retry.status == "answered", (k, retry)
        assert retry.path.count("finalize") == 1, (k, retry.path)
        turns = _questions(resources, second.graph_thread_id)
        assert turns == [FIRST_Q, SECOND_Q, THIRD_Q], k
        resumed[k] = retry.resumed
    # Finished nodes do not run again: every retry picks the turn up where it stopped.
    assert all(resumed.values()), resumed
