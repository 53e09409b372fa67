"""Structured values found by pattern on the whole question (:func:`forced_spans`).

E-mail addresses (also "name at example dot com"), IPv4 and IPv6 addresses without a prefix
length, IBANs, dates with a year (numeric or with a month name), two to four single letters
then a number ("W X 1234": a number plate), runs of digit groups of seven digits or more
(phone, card and id numbers; not versions or build numbers) and the tenant's deny terms:
every piece touching one of these spans is dropped, whatever the word lists say. Also the
quoted-passage pattern (:data:`QUOTED`) and the version test shared with
:meth:`redaction.minimise.Minimiser.vouches`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from redaction.minimise.pieces import word_set

EMAIL = re.compile(
    r"(?<![/@\w])[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[^\W\d_]{2,}(?![\w@])"
    r"|[\w.+\-]+\s*(?:\(at\)|\[at\]|\{at\})\s*[\w\-]+"
    r"(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|\sdot\s|\.)\s*[\w\-]+)+"
    r"|[\w.+\-]+\sat\s[\w\-]+(?:(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|\sdot\s)\s*[\w\-]+)+"
    r"|(?:\.[\w\-]+)*\.(?:com|org|net|edu|gov|io|co|uk|de|fr|es|it|nl|pl|pt|ca|cn|jp|in|br|ru|au))"
    r"(?!\w)",
    re.I,
)

_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\w|/\d)")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}(?![\w:]|/\d)", re.I)
_IBAN = re.compile(r"(?<![\w])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?(?!\w)")
_DATE = re.compile(
    r"(?<![\w.])(?:\d{1,2}[./\-]\d{1,2}[./\-](?:19|20)\d{2}|(?:19|20)\d{2}[/\-]\d{1,2}[/\-]\d{1,2}"
    r"|(?:19|20)\d{2}\.\d{2}\.\d{2})(?![\w.])"
)
_LETTERS_THEN_NUMBER = re.compile(r"(?<!\S)[^\W\d_](?:\s+[^\W\d_]){1,3}\s+\d{1,5}(?!\w)")
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
    "|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
    "|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre"
    "|januar|februar|märz|juni|juli|oktober|dezember"
    "|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro"
    "|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre"
    "|januari|februari|maart|mei|augustus"
)
_WORD_DATE = re.compile(
    rf"(?<!\w)(?:\d{{1,2}}(?:st|nd|rd|th|º|\.)?\s+(?:de\s+)?(?:{_MONTHS})\.?,?\s+(?:de\s+)?"
    rf"(?:19|20)\d{{2}}|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d{{2}})(?!\w)",
    re.I,
)
_DIGIT_RUN = re.compile(r"(?<![\w.\-])\+?\(?\d[\d()\-. /]*\d\)?(?![\w\-]|\.\d)")
_NUMBER_OK_BEFORE = word_set("kb build error errno code event status port")
_IP_WORDS = word_set(
    "ip ipv4 host server address gateway router ping dns proxy node vm client peer from to"
)

QUOTED = re.compile(
    r"(?<!\w)['\"\u201c\u2018\u300c\u00ab]([^'\"\u201d\u2019\u300d\u00bb]{2,160}?)['\"\u201d\u2019\u300d\u00bb](?!\w)"
)
"""A quoted passage: usually an error message, where a capitalised common word is kept."""


def forced_spans(text: str, deny_terms: Iterable[str]) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` that never leave: patterns and deny terms."""
    spans: list[tuple[int, int]] = []
    for pattern in (EMAIL, _IPV4, _IPV6, _IBAN, _DATE, _WORD_DATE, _LETTERS_THEN_NUMBER):
        for m in pattern.finditer(text):
            if pattern is EMAIL and re.match(r"git@", m.group(), re.I):
                continue
            if pattern is _IPV4 and _after_product(text, m.start()):
                continue  # "Rails 7.1.3.2": a four-part version
            spans.append(m.span())
    for m in _DIGIT_RUN.finditer(text):
        value = m.group()
        digits = sum(c.isdigit() for c in value)
        if digits < 7:
            continue
        groups = re.findall(r"\d+", value)
        if any(is_version(chunk) for chunk in value.split()):
            continue  # a version or build number: "124.0.6367.91", "2022 17.9.6"
        before = re.findall(r"[^\W\d_]+", text[max(0, m.start() - 12) : m.start()])
        if before and before[-1].casefold() in _NUMBER_OK_BEFORE and len(groups) == 1:
            continue  # "KB 5034441", "error 18456"
        spans.append(m.span())
    for term in deny_terms:
        if term.strip():
            for m in re.finditer(rf"(?<!\w){re.escape(term.strip())}(?!\w)", text, re.I):
                spans.append(m.span())
    return spans


def _after_product(text: str, start: int) -> bool:
    """True when a capitalised product word (not an IP cue) stands right before ``start``."""
    m = re.search(r"(?:^|\s)([A-Z][A-Za-z]+|v|version)\s$", text[:start])
    return m is not None and m.group(1).casefold() not in _IP_WORDS


def is_version(chunk: str) -> bool:
    """A dotted number with a group of at most two digits after the first ("10.0.22621.0")."""
    groups = chunk.split(".")
    return (
        len(groups) >= 2
        and all(g.isdigit() for g in groups)
        and any(len(g) <= 2 for g in groups[1:])
    )
