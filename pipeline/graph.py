"""Wiring of the corrective RAG graph; nothing here decides anything.

Nodes come from :mod:`pipeline.nodes`, routing from :mod:`pipeline.edges`.

Flow (CRAG, Yan et al. 2024, "Corrective Retrieval Augmented Generation", with Self-RAG's
verify-and-retry loop, Asai et al. 2023)::

    begin_turn -> route_question -> retrieve | redact_query -> web_search | generate
    retrieve / web_search -> grade_chunk (one Send per chunk) -> assess_grades
    assess_grades -> generate | rewrite_query -> retrieve | redact_query | abstain
    generate -> verify -> finalize | generate | rewrite_query | abstain
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph

from pipeline import answering, edges, nodes
from pipeline.deps import Deps
from pipeline.state import CragState, TurnInput

RECURSION_LIMIT = 60
"""Backstop only: the counters in state end every loop well before this many super-steps."""


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> Any:
    """Compile the graph.

    Args:
        checkpointer: Persists state per ``thread_id`` (``PostgresSaver`` in workers,
            ``InMemorySaver`` in tests, ``None`` for a stateless run).

    Returns:
        A compiled graph; invoke with ``{"question": ...}``, a config carrying
        ``configurable.thread_id`` and ``context=Deps(...)``.
    """
    builder = StateGraph(CragState, context_schema=Deps, input_schema=TurnInput)
    builder.add_node("begin_turn", nodes.begin_turn)
    builder.add_node("condense_question", nodes.condense_question)
    builder.add_node("route_question", nodes.route_question)
    builder.add_node("retrieve", nodes.retrieve)
    builder.add_node("grade_chunk", nodes.grade_chunk)
    builder.add_node("assess_grades", nodes.assess_grades)
    builder.add_node("rewrite_query", nodes.rewrite_query)
    builder.add_node("redact_query", nodes.redact_query)
    builder.add_node("web_search", nodes.web_search)
    builder.add_node("generate", answering.generate)
    builder.add_node("verify", answering.verify)
    builder.add_node("finalize", answering.finalize)
    builder.add_node("recall_answer", answering.recall_answer)
    builder.add_node("abstain", answering.abstain)

    builder.add_edge(START, "begin_turn")
    builder.add_conditional_edges("begin_turn", edges.after_begin)
    builder.add_edge("condense_question", "route_question")
    builder.add_conditional_edges("route_question", edges.after_route)
    builder.add_conditional_edges(
        "retrieve", edges.fan_out_grading, ["grade_chunk", "assess_grades", "abstain"]
    )
    builder.add_conditional_edges(
        "web_search", edges.fan_out_grading, ["grade_chunk", "assess_grades", "abstain"]
    )
    builder.add_edge("grade_chunk", "assess_grades")
    builder.add_conditional_edges("assess_grades", edges.after_grading)
    builder.add_conditional_edges("rewrite_query", edges.after_rewrite)
    builder.add_edge("redact_query", "web_search")
    builder.add_conditional_edges("generate", edges.after_generate)
    builder.add_conditional_edges("verify", edges.after_verify)
    builder.add_edge("finalize", END)
    builder.add_edge("recall_answer", END)
    builder.add_edge("abstain", END)
    return builder.compile(checkpointer=checkpointer, name="crag")
