"""The thread's earlier turns, rendered to fit a prompt.

The newest turns are shown whole (question, answer, cited sources); older ones are
summarised to one line each that keeps the answer's first sentence and its sources; if even
that does not fit, the oldest are dropped with a note. The budget comes from the smallest
context window in the model chain, so every prompt fits every model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.grounding import normalise_query
from pipeline.values import Turn

CHARS_PER_TOKEN = 4
"""Rough size of a token in English text, for budgeting without a tokenizer."""
HISTORY_SHARE = 0.25
"""Share of the smallest context window that the history may take in a prompt."""

_FIRST_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)", re.DOTALL)


def history_budget(context_window_tokens: int) -> int:
    """Characters the history may use in a prompt for a model with this window."""
    return int(context_window_tokens * HISTORY_SHARE * CHARS_PER_TOKEN)


def _sources(turn: Turn) -> str:
    titles = [f"[{c['n']}] {c['title']}" for c in turn["citations"]]
    return f" (sources: {'; '.join(titles)})" if titles else ""


def _whole(turn: Turn) -> str:
    answer = turn["answer"] if turn["status"] == "answered" else "(no answer: abstained)"
    return f"User: {turn['question']}\nAssistant: {answer}{_sources(turn)}"


def _summary(turn: Turn) -> str:
    if turn["status"] != "answered":
        return f"- asked {turn['question']!r}: no answer"
    match = _FIRST_SENTENCE.match(turn["answer"].strip())
    first = match.group(1) if match else turn["answer"].strip()[:200]
    return f"- asked {turn['question']!r}: {first}{_sources(turn)}"


def render_history(turns: Sequence[Turn], budget_chars: int) -> str:
    """Render earlier turns, newest whole and older summarised, within ``budget_chars``.

    Returns:
        The text to put in a prompt ("" when there are no turns).
    """
    whole: list[str] = []
    used = 0
    index = len(turns)
    while index > 0:
        text = _whole(turns[index - 1])
        if used + len(text) > budget_chars // 2 and whole:
            break
        whole.insert(0, text)
        used += len(text) + 1
        index -= 1
    summaries: list[str] = []
    for turn in reversed(turns[:index]):
        line = _summary(turn)
        if used + len(line) + 1 > budget_chars:
            break
        summaries.insert(0, line)
        used += len(line) + 1
    omitted = index - len(summaries)
    parts = [f"({omitted} earlier turns omitted)"] if omitted else []
    if summaries:
        parts.append("Earlier in this conversation:\n" + "\n".join(summaries))
    parts.extend(whole)
    return "\n".join(parts)[:budget_chars]


def earlier_answer(turns: Sequence[Turn], question: str) -> Turn | None:
    """The latest answered turn that asked the same question (normalised), if any."""
    wanted = normalise_query(question)
    for turn in reversed(turns):
        if turn["status"] == "answered" and normalise_query(turn["question"]) == wanted:
            return turn
    return None
