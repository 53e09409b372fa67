"""A scripted chat model (a langchain_core ``BaseChatModel``) that answers by role.

Every prompt of the graph ends with its role's task text (``prompts.ROLE_TASKS``), which is
how the role is recognised; the script maps each role to
replies given in order, or to a function of the last user message (graders run in parallel,
so their replies must depend on the chunk, not on call order). Exceptions in a script are
raised, to simulate outages.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from pipeline import prompts


def role_of(messages: list[BaseMessage]) -> str:
    """The role whose task text the prompt's last message carries, else ``"unknown"``."""
    user = str(messages[-1].content)
    for role, task in prompts.ROLE_TASKS.items():
        if task in user:
            return role
    return "unknown"


Reply = str | dict[str, Any] | Exception
Script = list[Reply] | Callable[[str], Reply]


class ScriptedChatModel(BaseChatModel):
    """Replies from a per-role script; records every call as ``(role, user text)``."""

    script: dict[str, Any]
    model_name: str = "scripted"
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _calls: list[tuple[str, str]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[tuple[str, str]]:
        return list(self._calls)

    def roles_called(self) -> list[str]:
        return [role for role, _ in self._calls]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        role = role_of(messages)
        user = str(messages[-1].content)
        with self._lock:
            self._calls.append((role, user))
            entry = self.script.get(role)
            if entry is None:
                raise AssertionError(f"no script for role {role!r}")
            reply = None if callable(entry) else entry.pop(0)
        if callable(entry):  # outside the lock: a slow script must not stall the others
            reply = entry(user)
        if isinstance(reply, Exception):
            raise reply
        content = reply if isinstance(reply, str) else json.dumps(reply)
        message = AIMessage(
            content=content,
            usage_metadata={
                "input_tokens": len(user) // 4,
                "output_tokens": len(content) // 4,
                "total_tokens": (len(user) + len(content)) // 4,
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def grade_by_keyword(*keywords: str) -> Callable[[str], dict[str, str]]:
    """A grader script: 0.9 when the chunk shown has any keyword (case-insensitive), else 0.1."""

    def grade(user: str) -> dict[str, str]:
        source = user.split("<source", 1)[-1].split("</source>", 1)[0].lower()
        hit = any(k.lower() in source for k in keywords)
        return {
            "score": 0.9 if hit else 0.1,
            "reason": "mentions the topic" if hit else "about something else",
        }

    return grade


_SHOWN = re.compile(r'<source n="(\d+)"[^>]*>(.*?)</source>', re.DOTALL)


def shown_sources(user: str) -> list[tuple[int, str]]:
    """``(number, text)`` of each source a prompt shows (``prompts.format_source``)."""
    return [(int(n), text) for n, text in _SHOWN.findall(user)]


def echo_condenser(user: str) -> dict[str, str]:
    """A condenser script that keeps the latest message as the standalone question."""
    return {"question": user.rsplit("Latest message: ", 1)[-1].strip()}
