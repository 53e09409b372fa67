"""The trivial graph every peer run server is benchmarked with (``bench.peers``).

Five nodes in a line, no model: each adds a step, the last appends the run's question to
``turns``. A thread's ``turns`` after N runs shows whether every run's update survived
(N entries) and in which order the runs ran. This file is copied into the peers' project
folder and loaded by their servers; it imports only LangGraph. No ``from __future__ import
annotations``: Aegra resolves the state's annotations outside this module's namespace.
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


def build() -> Any:
    """Compile the five-node graph (without a checkpointer: the server brings its own)."""
    builder = StateGraph(State)
    names = ["one", "two", "three", "four", "five"]
    for name in names[:-1]:
        builder.add_node(name, _step)
    builder.add_node(names[-1], _last)
    builder.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder.compile()


graph = build()
