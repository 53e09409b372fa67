"""Postal addresses: the cues that start one and the clause dropped after them.

An address starts after an address cue ("my address", "wohne", "주소", "διεύθυνση", a
possessive and an address word), at a street word near a house number ("Calle Mayor 5",
"ul. Marszałkowska 84", "Kungsgatan 3": a street word or a street-name ending), at a house
number before a street's name and an English street word ("14 Harrow Lane", "88 Birchwood
Blvd"), at a post-office box before its number ("PO Box 3381", "Postfach 10 12 34"), at a
German street preposition inside a sentence ("Am Sonnenhang 4"), or at a unit word before a
number ("Flat 2", "Apt. 4B", "lgh 1203"). The rest of the clause is dropped and never
revived (:func:`apply_address_cues`). The word lists are in
:mod:`~redaction.minimise.address_words`; Chinese, Japanese and Korean addresses in
:mod:`~redaction.minimise.addresses_east`.
"""

from __future__ import annotations

import re

from redaction.minimise import address_words as aw
from redaction.minimise.addresses_east import apply_east_asian_addresses, is_romaji_ward
from redaction.minimise.pieces import PARTICLES, Piece, capitalised, is_camel, sentence_start
from redaction.minimise.vocabulary import Vocabulary

_CLAUSE_END = re.compile(
    r"[;!?\u3002\u061f\u0964\u2014]|\.(?:\s|$)|\s-\s|\s(?:y|and|et|und|en|i|ve)\s"
    r"|(?<![Rr]ruga)\se\s"  # Albanian "Rruga e Durrësit": "e" joins a street's name
    r"|\s(?:because|but|which|since|while|when|weil|aber|wenn|parce|mais|quand|porque|pero"
    r"|cuando|perché|quando|omdat|maar|wanneer|ale|bo|gdy)\s"
)
"""Where an address clause ends: a sentence or clause mark, a dash, "and" or a conjunction
("because", "weil", "mais"...) in the support languages."""
_HOUSE_NUMBER = re.compile(r"(?:[a-z]{1,3}-)?\d{1,5}[a-zA-Z]?(?:/\d{1,4}[a-zA-Z]?)?")
"""A house number, with a flat after a slash ("17/4", "99/12") or a locative prefix before it
("ku-14": Zulu "at 14")."""
_STREET_PART = re.compile(r"\d{1,4}(?:st|nd|rd|th)|\d{1,4}(?:-\d{1,4}){1,3}|#\d{1,5}[A-Za-z]?")
"""Parts of an address line besides words and house numbers: an ordinal ("42nd"), a
Japanese block number ("2-21-1"), a unit after "#" ("#404")."""
_ORDINAL = re.compile(r"\d{1,4}(?:st|nd|rd|th)")
_BLOCK = re.compile(r"\d{1,4}(?:-\d{1,4}){1,3}")
_PO_BOX_NUMBER = re.compile(r"\d{1,7}")


def apply_address_cues(vocab: Vocabulary, text: str, pieces: list[Piece]) -> None:
    """Drop the addresses that follow an address cue, a street word or a unit word."""
    apply_east_asian_addresses(pieces)
    for i, piece in enumerate(pieces):
        word = piece.core.casefold()
        raw = piece.raw.casefold()
        bare = re.split(r"['\u2019]", word)[-1]  # "j'habite": the verb after the elision
        prev = pieces[i - 1].core.casefold() if i else ""
        nxt = pieces[i + 1].core.casefold() if i + 1 < len(pieces) else ""
        nxt_raw = pieces[i + 1].raw.casefold() if i + 1 < len(pieces) else ""
        nxt_core = next(
            (p.core for p in pieces[i + 1 : i + 4] if p.core.casefold() not in PARTICLES), ""
        )
        address_word = word in aw.ADDRESS_WORDS and (
            prev in aw.POSSESSIVES
            or piece.raw.endswith(":")
            or nxt in ("is", "es", "est", "ist")
            or nxt in aw.STREET_WORDS
            or nxt_raw in aw.STREET_WORDS
        )
        network = prev in aw.NETWORK_WORDS or word.split("-")[0] in aw.NETWORK_WORDS
        if (
            address_word
            or bare in aw.ADDRESS_CUES
            or (any(c in word for c in aw.ADDRESS_CUES_OTHER) and not network)
            or (prev, word) in aw.ADDRESS_PHRASES
        ):
            _drop_clause(text, pieces, i + 1)
        if _is_unit(pieces, i) or _is_po_box(pieces, i) or _street_preposition(pieces, i):
            _drop_clause(text, pieces, i)
        street = (word in aw.STREET_WORDS or raw in aw.STREET_WORDS) and (
            piece.core[:1].isupper()
            or (
                (raw.endswith(".") or word in aw.LOWER_STREET_WORDS or "/" in word)
                and capitalised(nxt_core)
                and nxt_core.casefold() not in vocab.technical
                and not is_camel(nxt_core)
            )
        )  # "Calle Mayor 5", "ul. Marszałkowska 84", "rue des Lilas 12", "C/ Mayor 5"
        street = street or any(c in word for c in aw.UNCASED_STREET_WORDS)
        ending = _street_ending(word) or is_romaji_ward(piece.core)
        if (street or ending) and _number_near(vocab, pieces, i):
            _drop_clause(text, pieces, _address_start(pieces, i))
        else:
            number = _after_name_street(pieces, i)
            if number is not None:
                _drop_clause(text, pieces, min(number, _address_start(pieces, number)))


def _address_start(pieces: list[Piece], i: int) -> int:
    """Where the address around the street word at ``i`` starts.

    Up to four capitalised words, house numbers, ordinals or block numbers before it.
    """
    start = i
    while start > 0 and start > i - 4 and _address_part(pieces[start - 1]):
        if (
            pieces[start - 1].raw.endswith((".", ":", ";", "!", "?"))
            and len(pieces[start - 1].core) > 3
        ):
            break  # a sentence or a label ends before the address ("'HTTP 403'. Alamat: Jl.")
        start -= 1
    return start


def _address_part(piece: Piece) -> bool:
    core = piece.core
    return (
        capitalised(core)
        or _HOUSE_NUMBER.fullmatch(core) is not None
        or _STREET_PART.fullmatch(core) is not None
    )


def _after_name_street(pieces: list[Piece], i: int) -> int | None:
    """The house number's index, for an English street word after a street's name.

    "14 Harrow Lane", "1290 W 42nd St", "55 oak ridge pkwy": the street word is capitalised
    (or a lower-case abbreviation), up to three name words stand before it with no
    punctuation between, and a house number before them. None when it is no such word.
    """
    piece = pieces[i]
    word, raw = piece.core.casefold(), piece.raw.casefold()
    if word not in aw.AFTER_NAME_STREET_WORDS and raw not in aw.AFTER_NAME_STREET_WORDS:
        return None
    if not (capitalised(piece.core) or word in aw.ABBREVIATIONS):
        return None
    j = i - 1
    while j >= 0 and j > i - 5:
        before = pieces[j]
        if before.raw != before.core:
            return None  # punctuation between: "Main, 3 Street" is no address line
        if _HOUSE_NUMBER.fullmatch(before.core) or _BLOCK.fullmatch(before.core):
            return j if j < i - 1 else None  # a name stands between number and street word
        if not (before.core.isalpha() or _ORDINAL.fullmatch(before.core)):
            return None
        j -= 1
    return None


def _is_po_box(pieces: list[Piece], i: int) -> bool:
    """True for a post-office box phrase before its number ("PO Box 3381", "Postbus 1234").

    Up to two words ("de Correos") may stand between the phrase and the number. "Box" and
    the short abbreviations count only capitalised.
    """
    piece = pieces[i]
    if not capitalised(piece.core):
        return False
    for phrase in aw.PO_BOXES:
        seen = [p.raw.casefold().rstrip(",:;") for p in pieces[i : i + len(phrase)]]
        cores = [p.core.casefold() for p in pieces[i : i + len(phrase)]]
        if seen != list(phrase) and cores != [w.rstrip(".") for w in phrase]:
            continue
        after = pieces[i + len(phrase) : i + len(phrase) + 3]
        return any(_PO_BOX_NUMBER.fullmatch(p.core) for p in after)
    return False


def _street_preposition(pieces: list[Piece], i: int) -> bool:
    """True for a capitalised German street preposition inside a sentence ("Am Sonnenhang 4").

    Inside a German sentence "am", "im", "zum" are written in lower case; capitalised, they
    start a street's name. Then one to three capitalised words and a house number follow
    (after "An", "Auf", "Unter", "Hinter", "In" an article first: "An der Alster 12").
    """
    piece = pieces[i]
    word = piece.core.casefold()
    if word not in aw.STREET_PREPOSITIONS or not capitalised(piece.core) or piece.raw != piece.core:
        return False
    if sentence_start(pieces, i):
        return False
    j = i + 1
    if word not in ("am", "im", "zum", "zur", "beim"):
        if j >= len(pieces) or pieces[j].core not in aw.STREET_ARTICLES:
            return False
        j += 1
    names = 0
    while j < len(pieces) and names < 3 and capitalised(pieces[j].core):
        if not pieces[j].core.replace("-", "").isalpha():
            return False
        names += 1
        j += 1
    return names > 0 and j < len(pieces) and _HOUSE_NUMBER.fullmatch(pieces[j].core) is not None


def _is_unit(pieces: list[Piece], i: int) -> bool:
    """True for a word for a flat ("Flat", "lgh", "Suite") before its number.

    "Unit" and "Suite" count only capitalised and with a comma after the number ("Unit 4,
    12 Dock Road"), not in "Unit 4 of the course".
    """
    piece = pieces[i]
    number = pieces[i + 1] if i + 1 < len(pieces) else None
    if number is None or not _HOUSE_NUMBER.fullmatch(number.core):
        return False
    word, raw = piece.core.casefold(), piece.raw.casefold()
    return (
        word in aw.UNIT_WORDS
        or raw in aw.UNIT_WORDS
        or (word in aw.TITLE_UNIT_WORDS and capitalised(piece.core) and number.raw.endswith(","))
        or any(c in piece.core for c in aw.UNCASED_UNIT_WORDS)
    )


def _drop_clause(text: str, pieces: list[Piece], start: int) -> None:
    """Drop pieces from ``start`` to the end of the clause (at most 14 pieces)."""
    if start >= len(pieces):
        return
    last = pieces[min(start + 14, len(pieces)) - 1].end  # no mark past the 14th piece counts
    end_at = len(text)
    for m in _CLAUSE_END.finditer(text, pieces[start].start, last + 1):
        # the word before the mark, from a bounded window: the whole text before it, and
        # every mark to the text's end, made "Jl. 5 " repeated cubic
        word = re.search(r"(?:^|\s)([^\W_]+)$", text[max(0, m.start() - 40) : m.start()])
        abbreviation = word is not None and (
            len(word.group(1)) <= 2
            or word.group(1).casefold() in aw.ABBREVIATIONS
            or _street_ending(word.group(1).casefold())
        )
        unit = word is not None and word.group(1).casefold() in aw.UNIT_ABBREVIATIONS
        if unit and re.match(r"\.\s+\d", text[m.start() : m.start() + 6]):
            continue  # a unit's abbreviation and its number ("Shk. 2", "Ap. 7", "Bl. 3")
        if m.group().startswith(".") and abbreviation:
            continue  # an abbreviation inside the address ("ul.", "m. 15", "Hauptstr.")
        end_at = m.start() + (1 if m.group().startswith(".") else 0)
        break
    for piece in pieces[start : start + 14]:
        if piece.start >= end_at:
            break
        piece.kind, piece.forced = "drop", True


def _street_ending(word: str) -> bool:
    return len(word) > 6 and word.endswith(aw.STREET_ENDINGS)


def _number_near(vocab: Vocabulary, pieces: list[Piece], i: int) -> bool:
    """True when a house number stands near the street word at ``i``.

    Up to three pieces before it, or after it: four pieces, or more across a street's
    name of capitalised words no technical list knows and particles ("Rua da Bica Duarte
    Belo 27"; not "Via Google Workspace Admin Console Chrome 126").
    """
    after = i + 5
    while (
        after < min(len(pieces), i + 8)
        and (capitalised(pieces[after - 1].core) or pieces[after - 1].core in PARTICLES)
        and not pieces[after - 1].raw.endswith((".", ",", ";", ":"))
        and pieces[after - 1].core.casefold() not in vocab.technical
        and pieces[after - 1].core.casefold() not in vocab.brand_words
    ):
        after += 1
    return any(
        _HOUSE_NUMBER.fullmatch(p.core.split(":")[-1]) or _STREET_PART.fullmatch(p.core)
        for p in pieces[max(0, i - 3) : after]
    )
