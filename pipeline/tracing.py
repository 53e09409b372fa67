"""OpenTelemetry spans for graph nodes and model calls (API only; the worker owns the SDK).

Each node runs inside a ``crag.node.<name>`` span that carries the tenant, the thread and
what the node decided; each model call gets a ``chat <model>`` span with the GenAI semantic
convention attributes (``gen_ai.*``, OpenTelemetry semantic conventions for generative AI).
With no SDK configured these are no-ops, so unit tests pay nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from langgraph.config import get_config
from opentelemetry import trace

from pipeline.llm import Usage

tracer = trace.get_tracer("crag.pipeline")

# Update keys copied onto a node's span, with the attribute name they get.
_UPDATE_ATTRIBUTES = {
    "route": "crag.route",
    "rewrites": "crag.rewrites",
    "generations": "crag.generations",
    "web_used": "crag.web_used",
    "web_skipped": "crag.web_skipped",
    "grounded": "crag.grounded",
    "resolves": "crag.resolves",
    "retrieval_error": "crag.retrieval_error",
    "model_error": "crag.model_error",
}


def _thread_id() -> str:
    try:
        return str(get_config().get("configurable", {}).get("thread_id", ""))
    except RuntimeError:  # called outside a graph run (unit tests of a node)
        return ""


def _annotate(span: trace.Span, update: Mapping[str, Any]) -> None:
    for key, attr in _UPDATE_ATTRIBUTES.items():
        value = update.get(key)
        if value is not None:
            span.set_attribute(attr, value)
    if "documents" in update:
        span.set_attribute("crag.chunks_retrieved", len(update["documents"]))
    graded = update.get("graded")
    if isinstance(graded, list) and graded and isinstance(graded[0], dict):
        span.set_attribute("crag.chunks_kept", sum(1 for g in graded if g.get("relevant")))
    outcome = update.get("outcome")
    if outcome:
        span.set_attribute("crag.outcome", outcome["status"])
        if outcome.get("reason"):
            span.set_attribute("crag.abstain_reason", outcome["reason"])


def traced_node(name: str, *, record: bool = True) -> Callable[[Callable[..., Any]], Any]:
    """Wrap a node: run it in a span and append ``name`` to the state's ``trace``.

    Args:
        name: The node's name in the graph.
        record: Append ``name`` to ``trace`` (off for the per-chunk grader, whose
            parallel branches would make the path order nondeterministic).
    """

    def wrap(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        @functools.wraps(fn)
        def node(state: Any, runtime: Any) -> dict[str, Any]:
            with tracer.start_as_current_span(f"crag.node.{name}") as span:
                span.set_attribute("crag.node", name)
                span.set_attribute("crag.tenant_id", runtime.context.tenant_id)
                span.set_attribute("crag.thread_id", _thread_id())
                update = fn(state, runtime)
                _annotate(span, update)
            if record:
                trace_update = update.get("trace") or []
                update["trace"] = _prepend(name, trace_update)
            return update

        return node

    return wrap


def _prepend(name: str, trace_update: list[str]) -> list[str]:
    # Keep a node's RESET marker first so the reducer still starts a new turn.
    if trace_update and trace_update[0] == "__reset__":
        return [trace_update[0], name, *trace_update[1:]]
    return [name, *trace_update]


@contextmanager
def model_span(role: str, model: str) -> Iterator[trace.Span]:
    """Open a span for one chat-model call (``gen_ai.operation.name = chat``)."""
    with tracer.start_as_current_span(f"chat {model}") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.request.model", model)
        span.set_attribute("crag.model_role", role)
        yield span


def record_usage(span: trace.Span, usage: Usage) -> None:
    """Put a call's token counts on its span (GenAI semantic conventions)."""
    span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
    span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
    span.set_attribute("gen_ai.usage.cache_read.input_tokens", usage.cached_tokens)
