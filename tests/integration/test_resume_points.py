"""A worker that dies after any checkpoint write of a turn: its retry ends the turn as an
unbroken run would, once, and the thread's turns all stay (real Postgres checkpointer, in
process), on three paths: answered, abstained after rewrites, recalled from the history.

The death is simulated at every write boundary of a turn in turn: the run's checkpoint
guard lets the first ``k`` writes through and refuses every later one, so Postgres holds
exactly what a worker killed after its ``k``-th write would have left. The drain-kill burst
(``test_faults.py``) found one such point by chance (a kill 44 ms into a job, just after
the input checkpoint and its first task's writes); this walks them all.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

import pytest

from pipeline.deps import Models
from tests.fakes.chat import ScriptedChatModel, grade_by_keyword
from tests.integration.graph_helpers import torque_model
from workers.contracts.errors import LockLost
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.runner import run_graph
from workers.runtime.resources import Resources
from workers.settings import Settings

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


PATHS: dict[str, tuple[Callable[[], ScriptedChatModel], str, str]] = {
    "answered": (torque_model, SECOND_Q, "finalize"),
    # Nothing is ever graded relevant: two rewrites, then the turn abstains.
    "abstained": (
        lambda: torque_model(
            grader=grade_by_keyword("no chunk says this"),
            rewriter=lambda _: {"query": "rotor shaft fastener torque"},
        ),
        SECOND_Q,
        "abstain",
    ),
    # The same question again: answered from the thread's history (``recall_answer``).
    "recalled": (torque_model, FIRST_Q, "recall_answer"),
}
"""Turn paths walked: the model, the second turn's question, the node that ends the turn."""


def _questions(resources: Resources, graph_thread_id: str) -> list[str]:
    state = resources.graph.get_state({"configurable": {"thread_id": graph_thread_id}}).values
    return [turn["question"] for turn in state.get("history", [])]


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_second_turn_killed_after_any_write_ends_as_an_unbroken_run_would(
    path: str, settings: Settings, migrated_db: str, corpus_tenant: str
) -> None:
    model, second_q, last_node = PATHS[path]
    resources = Resources.create(settings, models=Models.single(model()))
    try:
        _walk(resources, corpus_tenant, second_q, last_node)
    finally:
        resources.close()


def _walk(resources: Resources, tenant: str, second_q: str, last_node: str) -> None:
    ctx = context_of(resources)
    counting = DiesAfter(float("inf"))
    first = new_job(tenant, f"th-{uuid.uuid4().hex[:8]}", FIRST_Q)
    run_graph(first, ctx)
    unbroken = run_graph(new_job(tenant, first.thread_id, second_q), ctx, guard=counting)
    writes = counting.asked
    assert unbroken.path[-1] == last_node and unbroken.path.count(last_node) == 1, unbroken.path
    assert writes >= 6, writes  # a checkpoint per super-step, and the tasks' writes

    resumed: dict[int, bool] = {}
    for k in range(1, writes):
        thread = f"th-{uuid.uuid4().hex[:8]}"
        run_graph(new_job(tenant, thread, FIRST_Q), ctx)
        second = new_job(tenant, thread, second_q)
        with pytest.raises(LockLost):  # the attempt dies; what it wrote is all Postgres has
            run_graph(second, ctx, guard=DiesAfter(k))

        retry = run_graph(second, ctx)
        # The next job's new input would drop writes no checkpoint holds: only a turn that
        # was really checkpointed survives it.
        run_graph(new_job(tenant, thread, THIRD_Q), ctx)

        ended = (retry.status, retry.reason, retry.path)
        assert ended == (unbroken.status, unbroken.reason, unbroken.path), k
        turns = _questions(resources, second.graph_thread_id)
        assert turns == [FIRST_Q, second_q, THIRD_Q], k
        resumed[k] = retry.resumed
    # Finished nodes do not run again: every retry picks the turn up where it stopped.
    assert all(resumed.values()), resumed
