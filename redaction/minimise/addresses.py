"""Postal addresses: the cues that start one and the clause dropped after them.

An address starts after an address cue ("my address", "wohne", "주소", "διεύθυνση", a
possessive and an address word), at a street word near a house number ("Calle Mayor 5",
"ul. Marszałkowska 84", "Kungsgatan 3": a street word or a street-name ending), or at a
unit word before a number ("Flat 2", "Apt. 4B", "lgh 1203"). The rest of the clause is
dropped and never revived (:func:`apply_address_cues`). The lists cover the support
languages and their grammar's ordinary address words; no street or town is listed.
"""

from __future__ import annotations

import re

from redaction.minimise.pieces import PARTICLES, Piece, capitalised, is_camel, word_set
from redaction.minimise.vocabulary import Vocabulary

_ADDRESS_CUES = word_set(
    "adresim bezorgadres lieferadresse moro vivo wohne habito woon mieszkam alamat"
)
"""Words that start an address: the rest of the clause is dropped."""

_ADDRESS_WORDS = word_set(
    "address adres adresse indirizzo dirección direccion endereço anschrift adresu"
)
"""Address words that start one only after "my", "her"... or before ":" or "is"."""

_POSSESSIVES = word_set(
    "my his her our their mi mis su mon ma mes son sa mein meine meinen sein seine ihr ihre "
    "meu minha seu sua mijn zijn haar mio mia suo moje mój jego jej ship deliver send"
)

_ADDRESS_CUES_OTHER = (
    "배송지", "주소", "पता", "住所", "地址", "адрес", "عنوان", "διεύθυνσ", "כתובת", "ที่อยู่",
)  # fmt: skip
"""Address words of uncased scripts (and Greek stems), found inside a piece."""

_ADDRESS_PHRASES = (("địa", "chỉ"),)
"""Two-word address words ("địa chỉ", Vietnamese): the clause after them is dropped."""

_STREET_WORDS = word_set(
    "rua calle avenida av. avenue ave rue boulevard bd via viale piazza corso straße strasse "
    "str. weg gasse platz allee laan straat plein gracht kade street st. road rd. lane drive "
    "close court way crescent place square caddesi cad. sokak sok. mahallesi ulica ul. "
    "aleja al. улица ул. ngõ phố đường hẻm ngách grove terrace gardens mews"
)
"""Street words (capitalised, near a number): the address around them is dropped."""

_UNCASED_STREET_WORDS = ("רחוב", "شارع", "ถนน", "ซอย")
"""Street words of uncased scripts (Hebrew, Arabic, Thai), found inside a piece."""

_LOWER_STREET_WORDS = word_set(
    "rua calle avenida rue boulevard viale piazza corso straße strasse gasse allee laan straat "
    "plein gracht kade caddesi sokak mahallesi ulica aleja улица"
)
"""Street words that start an address in lower case too ("rue des Lilas"); not "via" or "way"."""

_STREET_ENDINGS = (
    "straße", "strasse", "straat", "gracht", "laan", "weg", "gatan", "gata", "vägen", "väg",
    "gränd", "torget", "gade", "vej", "veien", "veg", "gaten", "katu", "utca",
)  # fmt: skip
"""Endings of one-word street names in the Germanic, Nordic, Finnish and Hungarian
languages ("Lindenstraße", "Kungsgatan", "Nørrevej"), near a number."""

_UNIT_WORDS = word_set(
    "flat apt apt. apartment appartement apartamento apto apto. wohnung whg. lgh lägenhet "
    "leilighet lejlighed piso dpto dpto. кв. квартира"
)
"""Words for a flat or apartment, before its number ("Flat 2", "Whg. 5")."""

_TITLE_UNIT_WORDS = word_set("unit suite")
"""Unit words that are ordinary words in lower case ("test suite 3"): capitalised only."""

_UNCASED_UNIT_WORDS = ("דירה", "شقة")

_CLAUSE_END = re.compile(r"[;!?\u3002\u061f\u0964\u2014]|\.(?:\s|$)|\s(?:y|e|and|et|und|en|i|ve)\s")
_HOUSE_NUMBER = re.compile(r"\d{1,5}[a-zA-Z]?(?:/\d{1,4}[a-zA-Z]?)?")
"""A house number, with a flat after a slash ("17/4", "99/12")."""


def apply_address_cues(vocab: Vocabulary, text: str, pieces: list[Piece]) -> None:
    """Drop the addresses that follow an address cue, a street word or a unit word."""
    for i, piece in enumerate(pieces):
        word = piece.core.casefold()
        raw = piece.raw.casefold()
        prev = pieces[i - 1].core.casefold() if i else ""
        nxt = pieces[i + 1].core.casefold() if i + 1 < len(pieces) else ""
        nxt_raw = pieces[i + 1].raw.casefold() if i + 1 < len(pieces) else ""
        nxt_core = next(
            (p.core for p in pieces[i + 1 : i + 4] if p.core.casefold() not in PARTICLES), ""
        )
        address_word = word in _ADDRESS_WORDS and (
            prev in _POSSESSIVES
            or piece.raw.endswith(":")
            or nxt in ("is", "es", "est", "ist")
            or nxt in _STREET_WORDS
            or nxt_raw in _STREET_WORDS
        )
        if (
            address_word
            or word in _ADDRESS_CUES
            or any(c in piece.core for c in _ADDRESS_CUES_OTHER)
            or (prev, word) in _ADDRESS_PHRASES
        ):
            _drop_clause(text, pieces, i + 1)
        if _is_unit(pieces, i):
            _drop_clause(text, pieces, i)
        street = (word in _STREET_WORDS or raw in _STREET_WORDS) and (
            piece.core[:1].isupper()
            or (
                (raw.endswith(".") or word in _LOWER_STREET_WORDS)
                and capitalised(nxt_core)
                and nxt_core.casefold() not in vocab.technical
                and not is_camel(nxt_core)
            )
        )  # "Calle Mayor 5", "ul. Marszałkowska 84", "rue des Lilas 12"
        street = street or any(c in piece.core for c in _UNCASED_STREET_WORDS)
        if (street or _street_ending(word)) and _number_near(pieces, i):
            start = i
            while (
                start > 0
                and start > i - 4
                and (
                    capitalised(pieces[start - 1].core)
                    or _HOUSE_NUMBER.fullmatch(pieces[start - 1].core) is not None
                )
            ):
                start -= 1
            _drop_clause(text, pieces, start)


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
        word in _UNIT_WORDS
        or raw in _UNIT_WORDS
        or (word in _TITLE_UNIT_WORDS and capitalised(piece.core) and number.raw.endswith(","))
        or any(c in piece.core for c in _UNCASED_UNIT_WORDS)
    )


def _drop_clause(text: str, pieces: list[Piece], start: int) -> None:
    """Drop pieces from ``start`` to the end of the clause (at most 14 pieces)."""
    if start >= len(pieces):
        return
    end_at = len(text)
    for m in _CLAUSE_END.finditer(text, pieces[start].start):
        word = re.search(r"(?:^|\s)(\w{1,2})$", text[: m.start()])
        if m.group().startswith(".") and word:
            continue  # an abbreviation inside the address ("ul.", "m. 15", "Nr.")
        end_at = m.start() + (1 if m.group().startswith(".") else 0)
        break
    for piece in pieces[start : start + 14]:
        if piece.start >= end_at:
            break
        piece.kind, piece.forced = "drop", True


def _street_ending(word: str) -> bool:
    return len(word) > 6 and word.endswith(_STREET_ENDINGS)


def _number_near(pieces: list[Piece], i: int) -> bool:
    window = pieces[max(0, i - 3) : i + 5]
    return any(_HOUSE_NUMBER.fullmatch(p.core.split(":")[-1]) for p in window)
