"""Turns a web page (HTML or plain text) into the ``text`` of a web :class:`Document`.

Web text is untrusted input to the graph's prompts. Besides boilerplate, this strips content
a reader of the rendered page would not see (scripts, templates, comments, elements hidden
by attribute or inline style), because hidden text is the usual carrier of indirect prompt
injection (Greshake et al., "Not what you've signed up for", arXiv:2302.12173). Elements
hidden through CSS classes or external stylesheets cannot be detected without a renderer and
are kept.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag
from bs4.element import PreformattedString

DEFAULT_TEXT_BUDGET = 4000
"""Default maximum length of a web document's text, in characters."""

# Never visible or not page text at all.
_NON_CONTENT_TAGS = ("script", "style", "noscript", "template", "head", "iframe", "svg")
# Site chrome repeated on every page of a site; it crowds the budget and never answers.
_BOILERPLATE_TAGS = ("nav", "header", "footer", "aside", "form")
# Tags whose boundaries separate words; inline tags (b, a, span...) do not.
_BLOCK_TAGS = (
    "address", "article", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
    "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main", "ol", "p", "pre",
    "section", "table", "td", "th", "tr", "ul",
)  # fmt: skip
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)", re.I)
# Markup we recognise as HTML. Plain text such as "List<String>" must not be parsed as HTML,
# or the parser would swallow the "tag".
_HTML_MARKER = re.compile(
    r"<(?:!--|!doctype\b|/?(?:html|head|body|div|p|span|a|br|script|style|noscript|"
    r"template|nav|header|footer|aside|form|main|article|section|h[1-6]|ul|ol|li|"
    r"table|tr|td|img|meta|link|iframe)\b)",
    re.I,
)


def looks_like_html(content: str) -> bool:
    """Return True if ``content`` contains at least one common HTML tag or comment."""
    return _HTML_MARKER.search(content) is not None


def html_to_visible_text(html: str) -> str:
    """Return the visible main text of an HTML page or fragment, whitespace not yet collapsed.

    Removes ``script``, ``style``, ``noscript``, ``template``, ``head``, ``iframe``, ``svg``;
    comments and other non-text nodes; elements with the ``hidden`` attribute,
    ``aria-hidden="true"``, or an inline style with ``display:none`` or
    ``visibility:hidden|collapse``; and the boilerplate elements ``nav``, ``header``,
    ``footer``, ``aside``, ``form``.

    Args:
        html: HTML markup; parsed leniently with lxml, so broken markup does not raise.

    Returns:
        The remaining text, with a space at each block-element boundary.
    """
    soup = BeautifulSoup(html, "lxml")
    for node in soup.find_all(string=lambda s: isinstance(s, PreformattedString)):
        node.extract()
    for tag in soup.find_all([*_NON_CONTENT_TAGS, *_BOILERPLATE_TAGS]):
        if not tag.decomposed:  # already gone with a removed ancestor
            tag.decompose()
    for tag in soup.find_all(True):
        if not tag.decomposed and _is_hidden(tag):
            tag.decompose()
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before(" ")
        tag.insert_after(" ")
    return soup.get_text()


def _is_hidden(tag: Tag) -> bool:
    """Return True if the element is hidden by attribute or inline style."""
    if tag.has_attr("hidden"):
        return True
    if str(tag.get("aria-hidden", "")).strip().lower() == "true":
        return True
    style = tag.get("style")
    return style is not None and _HIDDEN_STYLE.search(str(style)) is not None


def collapse_whitespace(text: str) -> str:
    """Replace every run of Unicode whitespace with one space and trim both ends."""
    return " ".join(text.split())


def truncate_at_word(text: str, budget: int) -> str:
    """Return ``text`` cut to at most ``budget`` characters, at a word boundary.

    A single word longer than the budget is cut mid-word rather than dropped.

    Args:
        text: Whitespace-collapsed text.
        budget: Maximum length in characters (>= 1).

    Raises:
        ValueError: ``budget`` is less than 1.
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1 character, got {budget}")
    if len(text) <= budget:
        return text
    # Look one character past the budget: a space right there means the cut is clean.
    space = text.rfind(" ", 0, budget + 1)
    if space <= 0:
        return text[:budget]
    return text[:space].rstrip()


def clean_text(content: str) -> str:
    """Return ``content`` as one line of visible text (HTML stripped if it looks like HTML)."""
    visible = html_to_visible_text(content) if looks_like_html(content) else content
    return collapse_whitespace(visible)


def web_document_text(
    raw_content: str | None, content: str | None, budget: int = DEFAULT_TEXT_BUDGET
) -> str:
    """Return the text for a web document: the full page if usable, else the snippet.

    Args:
        raw_content: The provider's full page content (HTML, Markdown or text), if any.
        content: The provider's short snippet, if any.
        budget: Maximum length of the result in characters.

    Returns:
        Cleaned text of at most ``budget`` characters; ``""`` when neither input has any
        visible text.

    Raises:
        ValueError: ``budget`` is less than 1.
    """
    for candidate in (raw_content, content):
        text = clean_text(candidate) if candidate else ""
        if text:
            return truncate_at_word(text, budget)
    return ""
