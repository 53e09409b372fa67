"""The naive-RAG arm: top-k chunks, one plain chat call, no grading and no verification.

The baseline the fleet is measured against, on the same model (built by
:func:`workers.runtime.models.make_chat_model`, as the fleet builds its generator) and the
same tenant index, searched with the same ``k`` (settings ``retrieve_k``) by the same
:class:`corpus.TenantRetriever`.

Its reply is read in code:

- **abstention**: an empty reply, or one matching :data:`ABSTENTION` anywhere: "I don't
  know" (the exact reply the prompt asks for), "not mentioned / stated / provided / given /
  found / contained in the (provided) sources" or "cannot answer" / "can't answer";
- **citations**: every ``[n]`` marker (also ``[1, 2]``) mapped to the ``n``-th source's
  locator; a number that points to no source is dropped (the judge then sees fewer
  citations, which can only lower the naive arm's score).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from evaluation.scoring import Attempt
from pipeline.deps import RetrievalError, Retriever
from pipeline.documents import Document

NAIVE_SYSTEM = "You answer questions about a set of documents."

ABSTAIN_REPLY = "I don't know"
"""The exact reply the prompt asks for when the sources do not hold the answer."""

ABSTENTION = re.compile(
    r"\bI (?:do not|don['\u2019]t) know\b"
    r"|\bnot (?:mentioned|stated|provided|given|found|contained) in the (?:provided )?sources\b"
    r"|\b(?:cannot|can['\u2019]t|can not) answer\b",
    re.IGNORECASE,
)
"""A reply matching this anywhere is an abstention (see the module docstring)."""

_MARKERS = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def naive_messages(question: str, sources: Sequence[Document]) -> list[BaseMessage]:
    """The one prompt of the naive arm: numbered sources, the question, the instruction."""
    shown = "\n\n".join(
        f"[{n}] {doc['title']}\n{doc['text']}" for n, doc in enumerate(sources, start=1)
    )
    instruction = (
        "Answer the question using the sources above. Cite each statement with the number "
        "of its source in brackets, like [1]. If the sources do not contain the answer, "
        f"reply exactly: {ABSTAIN_REPLY}"
    )
    return [
        SystemMessage(NAIVE_SYSTEM),
        HumanMessage(f"Sources:\n\n{shown or '(none)'}\n\nQuestion: {question}\n\n{instruction}"),
    ]


def is_abstention(reply: str) -> bool:
    """True when ``reply`` is empty or matches :data:`ABSTENTION`."""
    return not reply.strip() or ABSTENTION.search(reply) is not None


def cited_locators(reply: str, sources: Sequence[Document]) -> list[str]:
    """The locators of the sources ``reply`` cites with ``[n]`` markers, first-cited first.

    Args:
        reply: The model's text.
        sources: The sources as numbered in the prompt (``[1]`` is ``sources[0]``).

    Returns:
        Distinct locators; markers beyond the sources are ignored.
    """
    numbers = [int(n) for group in _MARKERS.findall(reply) for n in group.split(",")]
    locators = [sources[n - 1]["locator"] for n in numbers if 1 <= n <= len(sources)]
    return list(dict.fromkeys(locators))


def reply_text(content: object) -> str:
    """A chat reply's text: a string as is, content blocks joined, anything else as ``str``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)
    return str(content)


def run_naive(question: str, retriever: Retriever, model: BaseChatModel, k: int) -> Attempt:
    """Answer ``question`` the naive way and record what it cost.

    Args:
        question: The item's question.
        retriever: The tenant's retriever (the same index as the graph arm).
        model: The chat model (the fleet's generator model).
        k: Chunks to retrieve (the graph's ``retrieve_k``).

    Returns:
        ``answered`` with the reply and its cited locators, ``abstained`` (reason
        ``abstained``), or ``failed`` when retrieval or the model call failed (reason: the
        error class, detail: its message). Latency covers retrieval and the call, seconds.
    """
    started = time.perf_counter()
    try:
        sources = retriever.search(question, k)
    except RetrievalError as exc:
        return Attempt(
            status="failed",
            reason="retrieval_unavailable",
            detail=str(exc),
            latency_s=time.perf_counter() - started,
        )
    try:
        reply = model.invoke(naive_messages(question, sources))
    except (openai.OpenAIError, httpx.HTTPError) as exc:  # unreachable, timeout, 4xx/5xx
        return Attempt(
            status="failed",
            reason=type(exc).__name__,
            detail=str(exc)[:500],
            model_calls=1,
            latency_s=time.perf_counter() - started,
        )
    latency = time.perf_counter() - started
    text = reply_text(reply.content).strip()
    usage = getattr(reply, "usage_metadata", None) or {}
    cost = {
        "model_calls": 1,
        "prompt_tokens": int(usage.get("input_tokens", 0)),
        "cached_prompt_tokens": int(usage.get("input_token_details", {}).get("cache_read", 0)),
        "output_tokens": int(usage.get("output_tokens", 0)),
        "latency_s": latency,
    }
    if is_abstention(text):
        return Attempt(
            status="abstained",
            answer=text,
            reason="abstained",
            detail="the reply says the sources do not answer",
            **cost,
        )
    return Attempt(status="answered", answer=text, citations=cited_locators(text, sources), **cost)
