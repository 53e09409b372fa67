"""Turn an HTML page into Markdown-flavoured plain text plus a title.

Headings become ``#`` lines and ``<pre>`` blocks become fenced code, so the chunker can
split HTML on the same section boundaries it uses for Markdown. Navigation, scripts and
styles are dropped because they repeat on every page and would dominate BM25 statistics.
"""

from __future__ import annotations

import re
import warnings

from bs4 import BeautifulSoup, NavigableString, Tag, XMLParsedAsHTMLWarning

_DROP_TAGS = frozenset({"script", "style", "noscript", "template", "nav", "iframe", "svg"})
# DocBook-generated manuals (the PostgreSQL docs among them) put prev/next links in
# divs rather than <nav>, so they need naming explicitly.
_DROP_CLASSES = frozenset({"navheader", "navfooter"})
_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "caption", "dd", "div", "dl", "dt",
    "figcaption", "figure", "footer", "form", "header", "hr", "main", "ol", "p",
    "section", "table", "tbody", "tfoot", "thead", "ul",
}  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACES = re.compile(r"\s+")
_FOLDABLE = re.compile(r"\s\s|[^\S ]")  # whitespace that _SPACES would change
_BLANK_RUNS = re.compile(r"\n{3,}")
_FENCE = "```"


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def extract_html(data: bytes) -> tuple[str, str]:
    """Parse an HTML page and return ``(text, title)``.

    Args:
        data: The raw file bytes; the encoding is taken from the page's ``<meta>`` charset
            or sniffed, so callers need not decode.

    Returns:
        ``text``: blank lines between blocks, ``#`` headings, fenced ``<pre>`` blocks;
        ``""`` when the page has no visible text. ``title``: ``<title>``, else the first
        ``<h1>``, else ``""``.
    """
    with warnings.catch_warnings():
        # XHTML pages (DocBook output) trip this warning; the lenient HTML parser is the
        # one we want for them too.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(data, "lxml")
    title = _title(soup)
    return _text(soup), title


def _title(soup: BeautifulSoup) -> str:
    if soup.title is not None:
        title = _collapse(soup.title.get_text())
        if title:
            return title
    h1 = soup.find("h1")
    return _collapse(h1.get_text()) if h1 is not None else ""


def _text(soup: BeautifulSoup) -> str:
    root = soup.body or soup
    for tag in root.find_all(_is_dropped):
        tag.decompose()
    # Source line breaks inside a paragraph are not meaningful; inside <pre> they are.
    in_pre = {id(s) for pre in root.find_all("pre") for s in pre.find_all(string=True)}
    for node in list(root.descendants):
        if isinstance(node, Tag):
            _mark_block(node)
        elif type(node) is not NavigableString:  # comments, CDATA, processing instructions
            node.extract()
        elif id(node) not in in_pre and _FOLDABLE.search(node):
            node.replace_with(_SPACES.sub(" ", node))
    return _tidy(root.get_text())


def _is_dropped(tag: Tag) -> bool:
    if tag.name in _DROP_TAGS or tag.get("role") == "navigation":
        return True
    classes = tag.get("class") or ()
    return not _DROP_CLASSES.isdisjoint(classes)


def _mark_block(tag: Tag) -> None:
    name = tag.name
    if name in _HEADINGS:
        tag.insert_before("\n\n" + "#" * _HEADINGS[name] + " ")
        tag.insert_after("\n\n")
    elif name == "pre":
        tag.insert_before(f"\n\n{_FENCE}\n")
        tag.insert_after(f"\n{_FENCE}\n\n")
    elif name == "li":
        tag.insert_before("\n- ")
    elif name == "tr":
        tag.insert_before("\n")
        tag.insert_after("\n")
    elif name == "br":
        tag.replace_with("\n")
    elif name in ("td", "th"):
        tag.insert_after(" ")
    elif name in _BLOCK_TAGS:
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")


def _tidy(text: str) -> str:
    lines: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if line.strip() == _FENCE:
            in_fence = not in_fence
            lines.append(_FENCE)
        elif in_fence:
            lines.append(line.rstrip())
        else:
            lines.append(_collapse(line))
    text = _BLANK_RUNS.sub("\n\n", "\n".join(lines))
    # A fence left empty (an empty <pre>) carries no text.
    text = text.replace(f"{_FENCE}\n{_FENCE}", "")
    return _BLANK_RUNS.sub("\n\n", text).strip()
