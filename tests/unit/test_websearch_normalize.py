"""Web page cleaning and truncation (websearch.normalize)."""

from __future__ import annotations

import pytest

from websearch.normalize import (
    clean_text,
    looks_like_html,
    truncate_at_word,
    web_document_text,
)


@pytest.mark.parametrize(
    ("text", "budget", "expected"),
    [
        ("short", 10, "short"),
        ("aaa bbb ccc", 7, "aaa bbb"),  # cut lands exactly at a space
        ("aaa bbb ccc", 8, "aaa bbb"),
        ("aaa bbb ccc", 9, "aaa bbb"),  # never half a word
        ("aaa bbb ccc", 11, "aaa bbb ccc"),
        ("aaaaaaaaaa bbb", 4, "aaaa"),  # one long word is cut mid-word, not dropped
    ],
)
def test_truncate_at_word(text: str, budget: int, expected: str) -> None:
    assert truncate_at_word(text, budget) == expected


def test_truncate_rejects_non_positive_budget() -> None:
    with pytest.raises(ValueError, match="budget"):
        truncate_at_word("text", 0)


@pytest.mark.parametrize(
    "html",
    [
        "<p>visible</p><script>evil()</script>",
        "<p>visible</p><style>p { color: red }</style>",
        "<p>visible</p><noscript>evil</noscript>",
        "<p>visible</p><template><p>evil</p></template>",
        "<p>visible</p><!-- evil -->",
        "<p>visible</p><div hidden>evil</div>",
        "<p>visible</p><div hidden=''><p>evil</p><p>evil</p></div>",
        '<p>visible</p><div aria-hidden="TRUE">evil</div>',
        '<p>visible</p><div style="display:none">evil</div>',
        '<p>visible</p><div style="Display: None;">evil <b>evil</b></div>',
        '<p>visible</p><div style="visibility: hidden">evil</div>',
        "<nav>evil</nav><header>evil</header><p>visible</p><aside>evil</aside>"
        "<form>evil<input type=hidden></form><footer>evil</footer>",
        "<html><head><title>evil</title><meta name=x content=y></head><body>visible</body></html>",
    ],
)
def test_invisible_and_boilerplate_content_is_removed(html: str) -> None:
    assert clean_text(html) == "visible"


def test_aria_hidden_false_is_kept() -> None:
    assert clean_text('<p aria-hidden="false">kept</p>') == "kept"


def test_block_boundaries_separate_words_but_inline_tags_do_not() -> None:
    html = "<h1>Title</h1><p>Feb<b>ruary</b> release</p><ul><li>one</li><li>two</li></ul>a<br>b"
    assert clean_text(html) == "Title February release one two a b"


def test_entities_are_decoded_and_whitespace_collapsed() -> None:
    assert clean_text("<p>Fish &amp;\n\n chips&nbsp;&nbsp;now</p>") == "Fish & chips now"


@pytest.mark.parametrize(
    "text",
    ["List<String> is generic", "if a < b and b > c", "Use `Vec<u8>` here", "# Heading\n\n*md*"],
)
def test_plain_text_and_markdown_are_not_parsed_as_html(text: str) -> None:
    assert not looks_like_html(text)
    assert clean_text(text) == " ".join(text.split())


def test_broken_html_does_not_raise() -> None:
    assert clean_text("<div><p>unclosed <b>bold <script>x") == "unclosed bold"


def test_web_document_text_prefers_page_then_snippet() -> None:
    assert web_document_text("<p>page</p>", "snippet") == "page"
    assert web_document_text(None, "snippet") == "snippet"
    assert web_document_text("<script>x</script>", "snippet") == "snippet"
    assert web_document_text(None, None) == ""
    assert web_document_text("one two three", None, budget=8) == "one two"
