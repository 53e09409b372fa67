"""Hard routing rules in code: they win over the router model.

The product ships only grounded answers, so the direct (source-less) route is reserved for
small talk, and questions about what happened in the last days go to the web, which a
private index cannot know about. Both are pure functions of the question text.
"""

from __future__ import annotations

import re

_SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|hiya|good (morning|afternoon|evening|night)|thanks|thank you|thx|"
    r"cheers|bye|goodbye|see you|ok|okay|great|cool|nice|how are you|who are you|"
    r"what can you do)\b",
    re.IGNORECASE,
)
_RECENT = re.compile(
    r"\b(today|tonight|yesterday|this (week|month)|last (night|week)|right now|"
    r"breaking|latest news|in the news)\b",
    re.IGNORECASE,
)
SMALL_TALK_MAX_WORDS = 6


def is_small_talk(message: str) -> bool:
    """True for a short greeting, thanks or pleasantry (the only use of the direct route).

    Examples:
        ``"Hello!"``, ``"thanks a lot"`` and ``"how are you?"`` are small talk;
        ``"Hi, what does VACUUM do?"`` is a question (too long, and about facts).
    """
    return bool(_SMALL_TALK.match(message)) and len(message.split()) <= SMALL_TALK_MAX_WORDS


def asks_about_recent_events(question: str) -> bool:
    """True when the question is about the last days ("this week", "today", "latest news")."""
    return bool(_RECENT.search(question))
