"""The pieces of a question, and the shape tests on pieces and words.

A piece is a run of non-space characters, or a run of Chinese or Japanese characters (which
have no spaces); its ``core`` is the piece without the quotes, brackets and punctuation
around it. The minimiser classifies each piece and keeps or drops it whole
(:mod:`redaction.minimise.classify`). This module holds the splitting, the per-piece state
(:class:`Piece`), the tests on the shape of a word (capitalised, CamelCase, name-shaped,
cased script) and the neighbourhood tests (the next non-particle piece, whether two pieces
are joined into one phrase).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]+")

_PIECE = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]+"
    r"|[^\s\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]+"
)

_EDGE = (
    "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb()[]{}<>,;:.!?"
    "\u3001\u3002\uff0c\uff1a\uff1f\uff01\u300c\u300d\u300e\u300f\uff08\uff09"
    "\u2014\u2013\u060c\u061b\u061f\u0964"
)

_VERSIONISH = re.compile(r"v?\d+(?:[.\-]\d+)*[a-z]{0,4}\d*(?:[+~\-][\w.~+\-]*)?", re.I)


def word_set(text: str) -> frozenset[str]:
    """A set of words written as one space-separated string (keeps the lists readable)."""
    return frozenset(text.casefold().split())


PARTICLES = word_set(
    "van von der den de del della di da dos das du le la y bin ibn al el ter ten ní nic mac "
    "ó bint abu t d dello degli ould des het dela delos"
)
"""Lower-case words that join the parts of a name ("Pieter van der Berg")."""


@dataclass
class Piece:
    """One piece of a question and what the minimiser decided about it."""

    start: int
    end: int
    raw: str
    core: str
    keep: bool = False
    kind: str = ""  # "tech", "word", "name", "drop", "punct"
    quoted: bool = False  # inside a quoted passage (an error message, usually)
    forced: bool = False  # dropped by a pattern, cue or deny term: never revived


def split_pieces(text: str) -> list[Piece]:
    """Split ``text`` into pieces (runs of non-space or of CJK characters)."""
    pieces = []
    for match in _PIECE.finditer(text):
        raw = match.group()
        core = _strip(raw)
        pieces.append(Piece(match.start(), match.end(), raw, core))
    return pieces


def _strip(raw: str) -> str:
    core = raw.strip(_EDGE)
    core = re.sub(r"['\u2019]s$", "", core)
    if raw.startswith("--") or (raw.startswith("-") and len(raw) > 1 and raw[1].isalpha()):
        core = raw.rstrip(_EDGE)
    if raw.startswith(("#", "%", "@", "/", "$")):
        core = raw.rstrip(_EDGE.replace("!", "")) if raw.startswith("#") else raw.rstrip(_EDGE)
    call = re.match(r"[^\W\d_][\w.]*\([\w.]*\)", raw.lstrip(_EDGE))
    if call and raw.lstrip(_EDGE)[call.end() :].strip(_EDGE) == "":
        core = call.group()  # "require(esm)", "os.fork()": the brackets belong to it
    return core


def mostly_caps(pieces: list[Piece]) -> bool:
    """True when more than 60% of the cased words (4 or more) are ALL-CAPS."""
    words = [p.core for p in pieces if sum(c.isalpha() for c in p.core) >= 2]
    cased = [w for w in words if all(is_cased_script(c) for c in w if c.isalpha())]
    if len(cased) < 4:
        return False
    return sum(1 for w in cased if w.isupper()) / len(cased) > 0.6


def is_cased_script(char: str) -> bool:
    """True when ``char`` belongs to a script with upper and lower case."""
    return char.lower() != char.upper() or unicodedata.category(char) in ("Lu", "Ll", "Lt")


def is_hangul(word: str) -> bool:
    """True when ``word`` holds a Hangul syllable."""
    return any("\uac00" <= c <= "\ud7a3" for c in word)


def is_camel(word: str) -> bool:
    """An inner capital after a lower-case letter, or caps then lower ("OOMKilled", "iPhone")."""
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", word)) and word.isalpha()


def name_shaped(word: str) -> bool:
    """True when a hyphen part of ``word`` looks like a surname ("McDonald", "O'Brien")."""
    return any(
        re.fullmatch(r"(?:Mc|Mac|O|D|De)['\u2019]?[A-Z][a-z]+", part)
        for part in re.split(r"-", word)
    )


def capitalised(core: str) -> bool:
    """True when ``core`` starts with a capital letter."""
    return bool(core) and core[0].isupper()


def next_is_version(pieces: list[Piece], i: int) -> bool:
    """True when a version follows directly ("Jenkins 2.452"); a birth year does not count."""
    nxt = pieces[i + 1] if i + 1 < len(pieces) else None
    return (
        nxt is not None
        and not nxt.forced
        and nxt.start == pieces[i].end + 1
        and bool(_VERSIONISH.fullmatch(nxt.core))
        and not re.fullmatch(r"(?:19\d\d|200\d)", nxt.core)
        and not pieces[i].raw.endswith((",", ";", ":", ".", ")"))
    )


def product_before_version(pieces: list[Piece], i: int, words: int = 2) -> bool:
    """True when up to ``words`` capitalised words, then a version, follow piece ``i``.

    "Jupyter Notebook 7.1.2", "Acme Security Center 5.11": the words are joined by single
    spaces and no punctuation, so they read as one product name.
    """
    j = i
    for _ in range(words):
        nxt = pieces[j + 1] if j + 1 < len(pieces) else None
        if nxt is None or not joined_pieces(pieces[j], nxt) or not capitalised(nxt.core):
            return False
        j += 1
        if next_is_version(pieces, j):
            return True
    return False


def sentence_start(pieces: list[Piece], i: int) -> bool:
    """True when piece ``i`` starts a sentence (or the text)."""
    prev = neighbour(pieces, i, -1)
    return prev is None or prev.raw.endswith((".", "!", "?", ":", "\u2014"))


def neighbour(pieces: list[Piece], i: int, step: int) -> Piece | None:
    """The next piece from ``i`` in direction ``step`` with a core, skipping particles."""
    j = i + step
    while 0 <= j < len(pieces):
        if pieces[j].core and pieces[j].core.casefold() not in PARTICLES:
            return pieces[j]
        if pieces[j].core and pieces[j].kind in ("tech",):
            return pieces[j]
        j += step
    return None


def neighbour_kept(pieces: list[Piece], i: int, step: int) -> bool:
    """True when the next non-punctuation piece in direction ``step`` is kept."""
    j = i + step
    while 0 <= j < len(pieces):
        if pieces[j].kind != "punct":
            return pieces[j].keep
        j += step
    return False


def joined_pieces(a: Piece, b: Piece) -> bool:
    """True when ``a`` and ``b`` are separated by one space and no punctuation."""
    first, second = (a, b) if a.start < b.start else (b, a)
    return (
        second.start == first.end + 1
        and first.raw == first.core
        and second.raw == second.core
        and first.quoted == second.quoted
    )


def joined(pieces: list[Piece], a: Piece, b: Piece) -> bool:
    """True when nothing but spaces, particles or one comma lies between ``a`` and ``b``."""
    first, second = (a, b) if a.start < b.start else (b, a)
    if first.quoted != second.quoted or second.raw[:1] in "'\"(\u201c\u2018\u300c[":
        return False  # a quotation or a bracket starts a new phrase
    return not re.search(r"[;.!?()\u2014\u2013:'\"]", first.raw[-1:]) and all(
        p.core.casefold() in PARTICLES
        for p in pieces
        if first.end <= p.start and p.end <= second.start
    )


def particles_before_name(pieces: list[Piece], i: int) -> bool:
    """True when piece ``i`` is a lower-case particle in a run that leads into a name.

    "van der Merwe", "de la Cruz": the particles right before a piece classified ``name``,
    or a capitalised piece already dropped as a personal value (joined to it by single
    spaces), belong to the name.
    """
    j = i
    while j < len(pieces) and pieces[j].core.casefold() in PARTICLES and pieces[j].core.islower():
        nxt = pieces[j + 1] if j + 1 < len(pieces) else None
        if nxt is None or pieces[j].raw != pieces[j].core or nxt.start != pieces[j].end + 1:
            return False
        j += 1
    if j == i or j >= len(pieces):
        return False
    name = pieces[j]
    return name.kind == "name" or (name.forced and name.kind == "drop" and capitalised(name.core))
