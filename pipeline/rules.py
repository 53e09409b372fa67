"""Hard routing rules in code: they win over the router model.

The product ships only grounded answers, so the direct (source-less) route is reserved for
small talk, and questions about what happened in the last days go to the web, which a
private index cannot know about. All are pure functions of the question text (and, for
:func:`ruled_route`, whether the job may search the web).
"""

from __future__ import annotations

import re

from pipeline.state import Route

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


def ruled_route(
    route: Route, reason: str, message: str, question: str, *, web_enabled: bool
) -> tuple[Route, str]:
    """Apply the hard rules to the router's choice; returns ``(route, reason)``.

    In order: ``direct`` is only for small talk (else ``vectorstore``); a question about
    recent events goes to the web when it is on; the web is never chosen when it is off.
    The index rules (empty or unreadable) need I/O and stay in the node.

    Args:
        route: The router's route (or the default when it was not asked or failed).
        reason: Its reason.
        message: The user's message as sent: small talk is judged on it ("Thanks!" stays
            small talk even when a follow-up's standalone form is not).
        question: The question the turn answers (the standalone form of a follow-up):
            recent events are judged on it.
        web_enabled: Whether this job may search the web.
    """
    if route == "direct" and not is_small_talk(message):
        route, reason = "vectorstore", "the direct route is only for small talk"
    if route == "vectorstore" and web_enabled and asks_about_recent_events(question):
        route, reason = "web_search", "the question is about recent events"
    if route == "web_search" and not web_enabled:
        route, reason = "vectorstore", "web search is off for this job"
    return route, reason
