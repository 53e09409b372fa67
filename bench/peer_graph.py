"""The trivial graph every run server is benchmarked with (``bench.peers``), ours too.

Five nodes in a line, no model: each adds a step, the last appends the run's question to
``turns``. A thread's ``turns`` after N runs shows whether every run's update survived
(N entries) and in which order the runs ran. This file is copied into the peers' project
folder and loaded by their servers; it imports only LangGraph. No ``from __future__ import
annotations``: Aegra resolves the state's annotations outside this module's namespace.

:func:`build_for_fleet` is the same graph for our fleet (``bench.fleet --graph trivial``):
its last node also writes the turn's ``outcome`` (an abstention, reason ``trivial_graph``)
and appends to ``history``, the two keys our worker reads, so the fleet around it (queue,
lock, fence, encrypted checkpoints, outcome row) runs exactly as it does for the corrective
graph.
"""

import itertools
import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    """One question in, the thread's turns and a step counter out."""

    question: str
    steps: Annotated[int, operator.add]
    turns: Annotated[list[str], operator.add]


def _step(state: State) -> dict[str, Any]:
    return {"steps": 1}


def _last(state: State) -> dict[str, Any]:
    return {"steps": 1, "turns": [state.get("question", "")]}


def _line_of_five(state: Any, last: Any) -> Any:
    """Five nodes in a line on ``state``: four add a step, ``last`` ends the run."""
    builder = StateGraph(state)
    names = ["one", "two", "three", "four", "five"]
    for name in names[:-1]:
        builder.add_node(name, _step)
    builder.add_node(names[-1], last)
    builder.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder


def build() -> Any:
    """Compile the five-node graph (without a checkpointer: the server brings its own)."""
    return _line_of_five(State, _last).compile()


class FleetState(State, total=False):
    """:class:`State` plus what our worker reads of a finished turn."""

    history: Annotated[list[str], operator.add]
    outcome: dict[str, Any]


def _last_for_fleet(state: FleetState) -> dict[str, Any]:
    outcome = {
        "status": "abstained",
        "answer": "",
        "citations": [],
        "reason": "trivial_graph",
        "detail": "the benchmark's five-node graph answers nothing",
    }
    return _last(state) | {"history": [state.get("question", "")], "outcome": outcome}


def build_for_fleet(checkpointer: Any = None) -> Any:
    """The same five nodes for our worker, compiled with its checkpointer.

    Args:
        checkpointer: The worker's Postgres checkpointer (fenced, encrypted).
    """
    return _line_of_five(FleetState, _last_for_fleet).compile(checkpointer=checkpointer)


graph = build()
