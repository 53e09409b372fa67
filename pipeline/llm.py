"""Calling chat models for structured replies, and telling model outages from bad replies.

One helper serves every role: it asks for a JSON-schema response format (OpenAI structured
outputs; llama.cpp turns it into a grammar) and validates the reply with the pydantic schema.
A reply that does not validate is a *bad reply* (:class:`BadReply`, the caller decides the
fallback); a model that cannot be reached is :class:`ModelUnavailable` (the turn abstains).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


class ModelUnavailable(RuntimeError):
    """The model endpoint failed (connection, timeout, 5xx, rate limit after retries).

    Attributes:
        error: The provider error's class name (``APIConnectionError``, ``RateLimitError``…).
    """

    def __init__(self, message: str, error: str = "") -> None:
        super().__init__(message)
        self.error = error


class BadReply(ValueError):
    """The model answered, but not with JSON that fits the schema."""


@dataclass(frozen=True)
class Usage:
    """Token usage of one call (0 when the provider does not report it)."""

    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    """Prompt tokens the server reused from its prompt cache (part of ``input_tokens``)."""


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """Return the OpenAI ``json_schema`` response format for ``schema``.

    Not ``strict``: OpenAI's strict mode rejects the string-length bounds that keep a small
    local model's grammar short; every reply is validated against ``schema`` anyway.
    """
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
    }


def model_name(model: BaseChatModel) -> str:
    """Return the model's configured name (``model_name``/``model``) or its class name."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def endpoint_key(model: BaseChatModel) -> str:
    """The circuit breaker's key for a model: its name at its endpoint (``name@base_url``).

    Two endpoints serving the same model name fail independently, so they get separate
    circuits; a model without a base URL (a local or scripted one) is keyed by name.
    """
    base = getattr(model, "openai_api_base", None) or getattr(model, "base_url", None)
    name = model_name(model)
    return f"{name}@{base}" if isinstance(base, str) and base else name


def _classify(exc: Exception) -> type[Exception] | None:
    """Which of our errors ``exc`` is, if any.

    ``ModelUnavailable`` for an outage worth a fallback, ``BadReply`` for a reply cut off or
    filtered, ``None`` for our own mistakes (bad request, auth, unknown model), which must
    fail loudly rather than hide behind a fallback.
    """
    # Imported lazily so pipeline/ does not hard-depend on a provider SDK.
    import httpx
    import openai

    if isinstance(exc, openai.LengthFinishReasonError | openai.ContentFilterFinishReasonError):
        return BadReply
    if isinstance(exc, openai.APIStatusError):
        retryable = exc.status_code >= 500 or exc.status_code in (408, 409, 429)
        return ModelUnavailable if retryable else None
    outage = openai.APIConnectionError | httpx.TransportError | ConnectionError | TimeoutError
    return ModelUnavailable if isinstance(exc, outage) else None


def ask_structured(
    model: BaseChatModel, schema: type[M], messages: list[BaseMessage]
) -> tuple[M, Usage]:
    """Call ``model`` and parse its reply into ``schema``.

    Args:
        model: Any LangChain chat model (OpenAI-compatible in production, scripted in tests).
        schema: The pydantic model the reply must validate against.
        messages: The prompt.

    Returns:
        The validated reply and the call's token usage.

    Raises:
        ModelUnavailable: The endpoint could not be reached or failed.
        BadReply: The reply is not JSON matching ``schema``.
    """
    try:
        reply = model.invoke(messages, response_format=response_format(schema))
    except Exception as exc:
        kind = _classify(exc)
        if kind is None:
            raise
        message = f"{model_name(model)}: {type(exc).__name__}: {str(exc)[:300]}"
        if kind is ModelUnavailable:
            raise ModelUnavailable(message, type(exc).__name__) from exc
        raise BadReply(message) from exc
    usage = _usage(model, reply)
    text = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
    try:
        return schema.model_validate_json(_FENCE.sub("", text).strip()), usage
    except ValidationError as exc:
        raise BadReply(
            f"{schema.__name__}: {exc.error_count()} error(s) in {text[:200]!r}"
        ) from exc


def _usage(model: BaseChatModel, reply: BaseMessage) -> Usage:
    meta = reply.usage_metadata if isinstance(reply, AIMessage) else None
    if not meta:
        return Usage(model_name(model))
    cached = (meta.get("input_token_details") or {}).get("cache_read") or 0
    return Usage(
        model_name(model), meta.get("input_tokens", 0), meta.get("output_tokens", 0), cached
    )
