"""Telling a model outage (fall back) from a bad reply (retry) from our own bug (raise)."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from langchain_core.messages import HumanMessage

from pipeline.llm import BadReply, ModelUnavailable, ask_structured
from pipeline.schemas import RewrittenQuery
from tests.fakes.chat import ScriptedChatModel

REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")


def status_error(cls: Any, status: int) -> Exception:
    return cls("boom", response=httpx.Response(status, request=REQUEST), body=None)


def ask(reply: Any) -> Any:
    model = ScriptedChatModel(script={"unknown": [reply]})
    return ask_structured(model, RewrittenQuery, [HumanMessage("hi")])


@pytest.mark.parametrize(
    "exc",
    [
        openai.APIConnectionError(request=REQUEST),
        openai.APITimeoutError(request=REQUEST),
        status_error(openai.RateLimitError, 429),
        status_error(openai.InternalServerError, 503),
    ],
)
def test_outages_are_model_unavailable(exc: Exception) -> None:
    with pytest.raises(ModelUnavailable) as caught:
        ask(exc)
    assert caught.value.error == type(exc).__name__


@pytest.mark.parametrize(
    "exc",
    [
        status_error(openai.BadRequestError, 400),
        status_error(openai.AuthenticationError, 401),
        status_error(openai.NotFoundError, 404),
    ],
)
def test_our_own_mistakes_fail_loudly(exc: Exception) -> None:
    with pytest.raises(type(exc)):
        ask(exc)


def test_a_reply_that_does_not_fit_is_a_bad_reply() -> None:
    with pytest.raises(BadReply, match="RewrittenQuery"):
        ask("not json")
    assert ask('```json\n{"query": "rotor torque"}\n```')[0].query == "rotor torque"
