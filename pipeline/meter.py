"""Making a node's model calls, and recording each one for accounting and budgets.

Every call (including a reply that could not be parsed, and a failed one) is recorded as a
:class:`~pipeline.state.ModelCall` in the state's ``calls`` list; the budget check, the
outcome's per-kind counts and the tokens per model are all derived from that one list.
"""

from __future__ import annotations

from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from pipeline.llm import BadReply, ModelUnavailable, Usage, ask_structured, model_name
from pipeline.state import ModelCall
from pipeline.tracing import model_span, record_usage

M = TypeVar("M", bound=BaseModel)


class Meter:
    """Calls models for one node and keeps the records (``calls``) for its state update."""

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []

    def _record(self, kind: str, usage: Usage, ok: bool) -> None:
        self.calls.append(
            {
                "kind": kind,
                "model": usage.model,
                "ok": ok,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
            }
        )

    def ask(
        self,
        kind: str,
        model: BaseChatModel,
        schema: type[M],
        messages: list[BaseMessage],
        *,
        retries: int = 0,
    ) -> M:
        """Call ``model`` for a reply in ``schema``, retrying an unparseable reply.

        Args:
            kind: The call's role (``router``, ``grader``, …), for accounting and spans.
            model: The chat model.
            schema: The structured reply expected.
            messages: The prompt.
            retries: Extra attempts after a reply that does not fit ``schema``.

        Raises:
            BadReply: Every attempt's reply was unusable.
            ModelUnavailable: The model could not be reached (not retried here: the SDK
                already retried, and the turn abstains).
        """
        name = model_name(model)
        for attempt in range(retries + 1):
            with model_span(kind, name) as span:
                try:
                    reply, usage = ask_structured(model, schema, messages)
                except BadReply:
                    self._record(kind, Usage(name), ok=False)
                    if attempt == retries:
                        raise
                    continue
                except ModelUnavailable:
                    self._record(kind, Usage(name), ok=False)
                    raise
                record_usage(span, usage)
            self._record(kind, usage, ok=True)
            return reply
        raise AssertionError("unreachable: the last attempt returns or raises")
