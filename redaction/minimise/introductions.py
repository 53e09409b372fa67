"""Where a writer names a person without a title: labels, self-introductions, sign-offs.

Three places in a message hold a name in a form no word list can vouch against, because
the name may be written in lower case or be made of ordinary words ("sandy brook"):

* after a *name label*, a word for "name" or for a person's role before a colon: "Name:",
  "Name on card:", "Titular:", "Payer:", "Nom :" (:data:`NAME_LABELS`);
* at the start of the message, before "here", "again" or a reporting verb: "jan kowal here
  -", "sandy brook asked me...", "jo park jr. writing" (:data:`SELF_VERBS`);
* at the end of the message, after a dash: "... since 3.2 — ana maría".

The name-shaped words there are dropped (:func:`apply_introductions`). Shape means: letters
only, not a technical term, and (for the start and the end, where no cue word vouches for
the name) at least one word of the name lists.
"""

from __future__ import annotations

import re

from redaction.minimise.pieces import PARTICLES, Piece, word_set
from redaction.minimise.vocabulary import Vocabulary, is_name

NAME_LABELS = word_set(
    "name names fullname full-name nombre nom nome naam imię имя ім'я isim ad\u0131 ad όνομα "
    "titular titolare titulaire inhaber holder cardholder accountholder payer payee "
    "beneficiary beneficiario bénéficiaire begünstigter empfänger recipient destinatario "
    "destinataire ordenante remitente sender absender contact contacto kontakt signed "
    "firmado signé unterschrieben"
)
"""Words that label a person's name when a colon follows them or a word after them
("Name:", "Name on card:", "Titular:", "Empfänger:")."""

SELF_VERBS = word_set(
    "here speaking asked asks says said wants wanted needs needed reports reported writes "
    "wrote called calls again writing"
)
"""Words after which the first words of a message are its writer or the person reported on
("anna here", "sandy brook asked me to raise this", "jo park again")."""

_SUFFIXES = word_set("jr jr. sr sr. ii iii iv")
"""Generational suffixes after a name ("john smythe jr.")."""

_DASHES = ("-", "--", "\u2014", "\u2013")
_SENTENCE_END = (".", "!", "?", ":", ";")


def apply_introductions(vocab: Vocabulary, pieces: list[Piece], languages: int = -1) -> None:
    """Drop the names after a name label, before "here" at the start, after a final dash.

    Args:
        vocab: The word lists.
        pieces: The question's pieces; the names found get kind "name" and ``forced``.
        languages: Bit mask of the question's languages: their function words are never
            taken for a name after a label.
    """
    for i, piece in enumerate(pieces):
        if piece.raw.endswith(":") and _labels_name(pieces, i):
            _drop_label_value(vocab, pieces, i, languages)
    _drop_opening_name(vocab, pieces)
    _drop_sign_off(vocab, pieces)


def _labels_name(pieces: list[Piece], i: int) -> bool:
    """True when piece ``i`` (ending in ":") is a name label or closes one ("Name on card:")."""
    for j in range(i, max(-1, i - 3), -1):
        if pieces[j].core.casefold() in NAME_LABELS:
            return True
        if j < i and pieces[j].raw.endswith((*_SENTENCE_END, ",")):
            return False
    return False


def _name_word(core: str) -> bool:
    return bool(re.fullmatch(r"[^\W\d_]+(?:[\-'\u2019.][^\W\d_]+)*\.?", core))


def _all_name_words(vocab: Vocabulary, words: list[Piece]) -> bool:
    return all(_name_word(p.core) and p.core.casefold() not in vocab.technical for p in words)


def _drop_label_value(vocab: Vocabulary, pieces: list[Piece], i: int, languages: int) -> None:
    """Drop up to four name-shaped words after the label at ``i``, to the end of the value."""
    for piece in pieces[i + 1 : i + 5]:
        core = piece.core
        folded = core.casefold()
        if not core or not _name_word(core) or folded in vocab.technical:
            break
        if vocab.function.get(folded, 0) & languages and folded not in PARTICLES:
            break
        piece.kind, piece.forced = "name", True
        if piece.raw.endswith((*_SENTENCE_END, ",", ")")):
            break


def _drop_opening_name(vocab: Vocabulary, pieces: list[Piece]) -> None:
    """The first one to four words before "here", "again" or a reporting verb: "anna lee here"."""
    start = 0
    if pieces and pieces[0].core.casefold() in ("hi", "hello", "hey", "dear"):
        start = 1
    for verb in range(start + 1, min(start + 5, len(pieces))):
        if pieces[verb].core.casefold() not in SELF_VERBS:
            continue
        words = pieces[start:verb]
        last = words[-1].raw.rstrip(",")
        if any(p.raw != p.core for p in words[:-1]) or (
            last != words[-1].core and last.casefold() not in _SUFFIXES
        ):
            return  # punctuation inside: not one name
        if (
            _all_name_words(vocab, words)
            and any(_name_part(vocab, p.core) for p in words)
            and all(
                _name_part(vocab, p.core)
                or p.core.casefold() in PARTICLES | _SUFFIXES
                or p.core.casefold() not in vocab.very_common  # "dobbs", not "access"
                for p in words
            )
        ):
            for p in words:
                p.kind, p.forced = "name", True
        return


def _name_part(vocab: Vocabulary, core: str) -> bool:
    """True for a name of the lists, or a hyphenated word with one ("martinez-ruiz")."""
    return is_name(vocab, core) or any(is_name(vocab, p) for p in core.split("-") if p)


def _drop_sign_off(vocab: Vocabulary, pieces: list[Piece]) -> None:
    """One to four name words after a dash at the very end: "... since 3.2 — ana maría"."""
    for dash in range(len(pieces) - 2, max(-1, len(pieces) - 6), -1):
        if pieces[dash].raw in _DASHES:
            break
    else:
        return
    words = pieces[dash + 1 :]
    if not words or any(p.raw.rstrip(".!") != p.core for p in words):
        return
    if _all_name_words(vocab, words) and any(is_name(vocab, p.core) for p in words):
        for p in words:
            p.kind, p.forced = "name", True
