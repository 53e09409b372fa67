"""Making a node's model calls, and recording each one for accounting and budgets.

Every call (including a reply that could not be parsed, and a failed one) is recorded as a
:class:`~pipeline.state.ModelCall` in the state's ``calls`` list; the budget check, the
outcome's per-kind counts and the tokens per model are all derived from that one list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from opentelemetry import trace
from pydantic import BaseModel

from pipeline.deps import CircuitBreaker, Deps
from pipeline.llm import (
    BadReply,
    ModelUnavailable,
    Usage,
    ask_structured,
    endpoint_key,
    model_name,
)
from pipeline.state import CIRCUIT_OPEN, Update
from pipeline.tracing import model_span, record_usage
from pipeline.values import ModelCall

M = TypeVar("M", bound=BaseModel)


class Meter:
    """Calls models for one node and keeps the records (``calls``) for its state update.

    Args:
        fallbacks: Models tried in order when the asked model cannot be reached.
        breaker: Shared circuit breaker: a model whose circuit is open is skipped (recorded
            as a ``CircuitOpen`` call that cost nothing) and the next one is asked.
    """

    def __init__(
        self, fallbacks: Sequence[BaseChatModel] = (), breaker: CircuitBreaker | None = None
    ) -> None:
        self.calls: list[ModelCall] = []
        self._fallbacks = tuple(fallbacks)
        self._breaker = breaker

    @classmethod
    def of(cls, deps: Deps) -> Meter:
        """A node's meter over the run's fallback models and circuit breaker."""
        return cls(deps.models.fallbacks, deps.breaker)

    def _record(self, kind: str, usage: Usage, error: str | None = None) -> None:
        self.calls.append(
            {
                "kind": kind,
                "model": usage.model,
                "ok": error is None,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cached_tokens": usage.cached_tokens,
                "error": error,
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
        """Call ``model`` (then each fallback if it is unreachable) for a reply in ``schema``.

        Args:
            kind: The call's role (``router``, ``grader``, …), for accounting and spans.
            model: The chat model.
            schema: The structured reply expected.
            messages: The prompt.
            retries: Extra attempts, on the same model, after a reply that does not fit
                ``schema`` (a bad reply is not a reason to fall back).

        Raises:
            BadReply: Every attempt's reply was unusable.
            ModelUnavailable: The model and every fallback were unreachable (the SDK
                already retried each; the turn abstains).
        """
        last: ModelUnavailable | None = None
        for candidate in (model, *self._fallbacks):
            name, circuit = model_name(candidate), endpoint_key(candidate)
            if self._breaker is not None and not self._breaker.allow(circuit):
                self._record(kind, Usage(name), CIRCUIT_OPEN)  # a hop, not a call
                trace.get_current_span().add_event("circuit_open", {"model": name})
                last = ModelUnavailable(f"{name}: circuit open", CIRCUIT_OPEN)
                continue
            try:
                reply = self._ask_one(kind, candidate, schema, messages, retries)
            except ModelUnavailable as exc:
                self._report(circuit, ok=False)
                last = exc
                continue
            except BadReply:
                self._report(circuit, ok=True)  # it answered: the endpoint is healthy
                raise
            self._report(circuit, ok=True)
            return reply
        assert last is not None
        raise last

    def judge(
        self,
        kind: str,
        model: BaseChatModel,
        schema: type[M],
        messages: list[BaseMessage],
        what: str,
    ) -> tuple[M | None, Update]:
        """A judge's call (verifier, direct check, contradiction check), failing closed.

        Asked once more after an unusable reply (:meth:`ask` with ``retries=1``).

        Args:
            kind: The call's role.
            model: The chat model.
            schema: The structured reply expected.
            messages: The prompt.
            what: What failed, for the feedback ("the verifier could not check the answer").

        Returns:
            ``(reply, {})``; or ``(None, update)`` where the update fails the answer closed:
            ``grounded`` and ``resolves`` ``False`` with ``"{what} ({error})"`` as feedback
            when both replies were unusable, ``model_error`` when no model could be reached.
        """
        try:
            return self.ask(kind, model, schema, messages, retries=1), {}
        except BadReply as exc:
            return None, {"grounded": False, "resolves": False, "feedback": f"{what} ({exc})"}
        except ModelUnavailable as exc:
            return None, {"model_error": str(exc)}

    def _report(self, model: str, ok: bool) -> None:
        if self._breaker is not None:
            self._breaker.record(model, ok)

    def _ask_one(
        self,
        kind: str,
        model: BaseChatModel,
        schema: type[M],
        messages: list[BaseMessage],
        retries: int,
    ) -> M:
        name = model_name(model)
        for attempt in range(retries + 1):
            with model_span(kind, name) as span:
                try:
                    reply, usage = ask_structured(model, schema, messages)
                except BadReply:
                    self._record(kind, Usage(name), "BadReply")
                    if attempt == retries:
                        raise
                    continue
                except ModelUnavailable as exc:
                    span.set_attribute("error.type", exc.error)
                    self._record(kind, Usage(name), exc.error or "ModelUnavailable")
                    raise
                record_usage(span, usage)
            self._record(kind, usage)
            return reply
        raise AssertionError("unreachable: the last attempt returns or raises")
