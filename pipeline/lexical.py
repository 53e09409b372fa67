"""Cheap lexical tools for checks that must not cost a model call.

Tokens are lower-cased words with a crude suffix strip (enough to match "vacuuming" with
"vacuum"); stop words are dropped. Numbers are kept whole, so "12" never matches "120".
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

_STOP_WORDS_TEXT = (
    "a an and are as at be been but by can could did do does for from had has have how i if "
    "in into is it its me my no not of on or our she should so than that the their them then "
    "there these they this those to too us was we were what when where which who whom why "
    "will with would you your about also any all each more most other some such only own "
    "same very just over under again further once here both few"
)
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> set[str]:
    """Stemmed, lower-cased words of ``text`` without stop words."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS}


def numbers(text: str) -> set[str]:
    """Every number written in ``text`` (``"12"``, ``"15.4"``, ``"1,000"``)."""
    return set(_NUMBER.findall(text))


_IDENTIFIER = re.compile(
    r"(?<![\w.\\-])(?:"
    r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)*_[A-Za-z0-9_.]*[A-Za-z0-9]"  # max_wal_size
    r"|[A-Za-z][A-Za-z0-9]*_?[A-Za-z0-9]*\.[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*"
    r"|--?[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]"  # --jobs, -j is too short to count
    r"|\\[A-Za-z]+"  # psql's \timing
    r")"
)
_NOT_IDENTIFIERS = frozenset({"e.g", "i.e", "etc", "vs"})
_ADDRESSES = re.compile(r"\S+@\S+|\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
"""E-mail addresses and URLs: where a person or a page is, not a name a reader configures."""


SQL_COMMAND = re.compile(r"\b[A-Z]{4,}(?:_[A-Z]+)*\b")
"""A command written in capitals (``VACUUM``, ``MERGE``)."""
SENTENCE = re.compile(r"(?:[^.!?\n]|\.(?=\w))+(?:[.!?](?!\w)|$)|[^\n]+", re.MULTILINE)
"""A sentence: up to a full stop that is not inside a number or a name ("as high as 1.0,
…" and "gc.auto defaults to 6700" go on)."""
TABLE_RULE = re.compile(r"^(?=[^|]*\|)(?=[^-]*-)[|:\-\s]+$")
"""The rule under a Markdown table's header row: ``|---|:---:|``."""
CAMEL_CASE = re.compile(r"\b[A-Za-z]*[a-z][A-Z][a-z][A-Za-z]*\b")
"""A directive written in CamelCase (``LoginGraceTime``, ``ClientAliveInterval``); a
product's capitals ("PostgreSQL", "MySQL") are not."""


def identifiers(text: str) -> set[str]:
    r"""Names of settings, functions, options and commands written in ``text``, lower-cased.

    ``max_wal_size``, ``pg_stat_statements.max``, ``gc.auto``, ``--jobs``, ``\timing``: the
    spellings a reader copies into a configuration file or a shell. Like a number, such a
    name is a precise fact, so a claim that names one its sources never mention is not
    supported by them, however many of its other words they share. Plain words, numbers,
    abbreviations (``e.g.``), e-mail addresses and URLs are not identifiers.
    """
    found = {m.group(0).lower() for m in _IDENTIFIER.finditer(_ADDRESSES.sub(" ", text))}
    return {f for f in found if f not in _NOT_IDENTIFIERS and len(f) > 2}


_QUANTITY_QUESTION = re.compile(
    r"\bhow (?:many|much|long|large|big|often|far|old|high|low|small)\b"
    r"|\bwhat (?:port|size|percentage|number|amount)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = re.compile(
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|thousand|million|billion|half|twice|once|"
    r"unlimited|no limit|none)\b",
    re.IGNORECASE,
)


_NAMING_HEAD = re.compile(
    r"\b(?:which|what)\s+(?!(?:is|are|was|were|does|do|did|can|should|would|will)\b)\w",
    re.IGNORECASE,
)
""""Which meta-command", "what option": a clause that asks for a named thing."""
_CLAUSE_BREAK = re.compile(r"[,;:?(]|\band\b|\bor\b", re.IGNORECASE)


def asks_for_quantity(question: str) -> bool:
    """True for a question whose answer is a quantity ("how many", "how long", "what port").

    A cue inside a clause that already asks for a named thing does not count: "Which psql
    meta-command turns on displaying how long each statement takes?" asks for a command,
    and "how long" only describes it. A cue after a clause break (a comma, "and", "or")
    asks on its own: "Which format must be used, and how many jobs run by default?".
    """
    for cue in _QUANTITY_QUESTION.finditer(question):
        before = question[: cue.start()]
        clause = _CLAUSE_BREAK.split(before)[-1]
        if not _NAMING_HEAD.search(clause):
            return True
    return False


def states_quantity(text: str) -> bool:
    """True when ``text`` states a quantity: a digit, or a number word ("three", "once")."""
    return bool(_NUMBER.search(text) or _NUMBER_WORDS.search(text))


def is_degenerate(text: str, min_words: int = 12, min_distinct: float = 0.4) -> bool:
    """True for text that loops: a word three times in a row, or few distinct words.

    Small models under a grammar sometimes repeat a phrase until the length limit; such
    text is not an answer even when each word appears in the sources.
    """
    words = _WORD.findall(text.lower())
    if any(a == b == c for a, b, c in zip(words, words[1:], words[2:], strict=False)):
        return True
    return len(words) >= min_words and len(set(words)) / len(words) < min_distinct


def support_ratio(claim: str, evidence: str) -> float:
    """Share of the claim's content terms that occur in ``evidence``, in [0, 1].

    1.0 for a claim with no content terms (nothing to contradict).
    """
    terms = content_terms(claim)
    if not terms:
        return 1.0
    return len(terms & content_terms(evidence)) / len(terms)


_LETTERS = re.compile(r"[^\W\d_]+")


def unsupported_words(claim: str, evidence: str) -> list[str]:
    """Words of ``claim`` written in a non-Latin script that ``evidence`` never contains.

    :func:`content_terms` sees only ASCII words, so without this a claim could carry text
    in another script unchecked; a multilingual model under a grammar sometimes switches
    script mid-sentence ("…do not significantly 干扰"). A word in a script the sources do
    use (a Japanese page quoted in Japanese) is looked up in them like any other.
    """
    return [w for w in _LETTERS.findall(claim) if not _is_latin(w) and w not in evidence]


def is_latin_text(text: str) -> bool:
    """True when every letter of ``text`` is a Latin one (digits and symbols do not count)."""
    return all(_is_latin(word) for word in _LETTERS.findall(text))


def _is_latin(word: str) -> bool:
    return all(unicodedata.name(c, "").startswith("LATIN") for c in word)


def keeps_the_message(message: str, standalone: str, min_share: float = 0.5) -> bool:
    """Whether a condensed question still asks what the user's message asks.

    A follow-up condensed into a standalone question keeps the message's own content words
    and adds context ("its price?" → "the Quillmate Pro's price?"). A small model sometimes
    returns an earlier question, or its history markup, instead; then most of the message's
    words are gone. True when at least ``min_share`` of the message's content terms occur
    in ``standalone`` (or the message has none, e.g. "Why?").
    """
    terms = content_terms(message)
    if not terms:
        return True
    return len(terms & content_terms(standalone)) / len(terms) >= min_share
