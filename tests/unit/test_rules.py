"""Hard routing rules and lexical checks: pure functions of text."""

from __future__ import annotations

import pytest

from pipeline.lexical import content_terms, numbers, support_ratio
from pipeline.rules import asks_about_recent_events, is_small_talk


@pytest.mark.parametrize("text", ["Hello!", "thanks a lot", "How are you?", "Good morning"])
def test_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize(
    "text",
    [
        "Hi, what does the VACUUM command do in PostgreSQL?",
        "Who won the 2022 World Cup final?",
        "What is the default value of max_connections?",
    ],
)
def test_questions_are_not_small_talk(text: str) -> None:
    assert not is_small_talk(text)


@pytest.mark.parametrize(
    ("text", "recent"),
    [
        ("What was released this week?", True),
        ("Any PostgreSQL news today?", True),
        ("What is the current refund policy?", False),
        ("What is the latest version of our API?", False),
    ],
)
def test_recent_events(text: str, recent: bool) -> None:
    assert asks_about_recent_events(text) is recent


def test_terms_are_stemmed_and_stop_words_dropped() -> None:
    assert content_terms("The vacuuming of tables") == {"vacuum", "tabl"}


def test_numbers_are_whole() -> None:
    assert numbers("12 newton metres, version 15.4, 1,000 rows") == {"12", "15.4", "1,000"}
    assert "12" not in numbers("120 rows")


def test_support_ratio() -> None:
    evidence = "The rotor shaft fastener must be tightened to 12 newton metres."
    assert support_ratio("The fastener needs 12 newton metres", evidence) == pytest.approx(0.8)
    assert support_ratio("Bananas are yellow fruit", evidence) == 0.0
    assert support_ratio("It is", evidence) == 1.0


def test_ruled_route_judges_small_talk_on_the_message_and_recency_on_the_question() -> None:
    from pipeline.rules import ruled_route

    # A follow-up's standalone form is not small talk, but "Thanks!" is.
    assert (
        ruled_route("direct", "r", "Thanks!", "Thanks for the torque value", web_enabled=True)[0]
        == "direct"
    )
    assert ruled_route("direct", "r", "What is it?", "What is it?", web_enabled=False) == (
        "vectorstore",
        "the direct route is only for small talk",
    )
    assert ruled_route("vectorstore", "r", "and now?", "news today?", web_enabled=True)[0] == (
        "web_search"
    )
    assert ruled_route("web_search", "r", "q", "q", web_enabled=False)[0] == "vectorstore"
