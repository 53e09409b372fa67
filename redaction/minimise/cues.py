"""Personal cues and the values after them (:func:`apply_cues`).

A cue is a word or phrase after which a personal value follows: a title or an introduction
before a name ("Mme", "my name is", "ich heiße"), a word before an id, number or login
("passport", "customer ID", "Kennzeichen"), an address word ("my address", "wohne") or a
street word near a number ("Rua ... 12"). The value after the cue is dropped and never
revived, up to the end of the value or of the clause. The lists cover the corpus languages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from redaction.minimise.pieces import CJK, PARTICLES, Piece, capitalised, is_camel, word_set
from redaction.minimise.vocabulary import Vocabulary, is_name

_NAME_CUES = word_set(
    "mr mr. mrs mrs. ms ms. mme mme. mlle m. herr herrn frau dr dr. rev rev. sr sr. sra sra. "
    "sig. sig.ra dott. pan pani"
)
"""Titles: the name-shaped words after them are dropped."""

_NAME_CUE_PHRASES = (
    "my name is", "i am", "i'm", "this is", "it's", "it is", "me llamo", "soy", "je suis",
    "je m'appelle", "c'est", "sou", "eu sou", "mi nombre es", "ich heiße", "ich bin",
    "mi chiamo", "sono", "chamo-me",
    "meu nome é", "ik ben", "mijn naam is", "nazywam się", "jestem", "меня зовут",
    "benim ad\u0131m", "ben", "t.a.v.",
    "in the name of", "on behalf of", "em nome de", "a nombre de", "en nombre de", "au nom de",
    "a nome di", "op naam van", "auf den namen", "im namen von", "na imię",
)  # fmt: skip
"""Phrases that introduce the speaker's name: the name-shaped words after them are dropped."""

_WEAK_NAME_CUES = word_set(
    "hi hey hello hola salut bonjour hallo ciao olá for from para pour für per"
)
"""Words before which a name is common but not certain: only lower-case names are dropped."""

_ID_CUES = word_set(
    "passport pasaporte passeport reisepass passaporto paszport pasaport паспорт "
    "personalausweis ausweis dni nie nif nir cpf rg pesel bsn ssn sin aadhaar pan nino "
    "plate targa kenteken kennzeichen matrícula matricula immatriculation rejestracyjny "
    "plaka car customer client cliente kunde kundennummer klant klantnummer member "
    "membership employee mitarbeiter matricola utente user username login gamertag handle "
    "number account konto cuenta conto compte id ident n° no. nº número numero nummer numer "
    "iban nib card tarjeta carte karte carta phone tel tel. telephone telefon teléfono "
    "téléphone telefone telefono móvil mobile cell mobil handy celular cellulare dob born "
    "geboren nacido nacida née né nato nata"
)
"""Words after which an id, number or login follows: code-like words after them are dropped."""

_ID_CUES_OTHER = (
    "لوحة", "رقم", "护照", "手机号", "电话", "身份证", "연락처", "전화", "주민등록번호",
    "आधार", "मोबाइल", "番号", "번호", "아이디", "계정", "会員", "社員", "顧客", "账号", "帐号",
    "用户名", "ユーザー名", "アカウント", "사용자", "หมายเลข", "เบอร์", "บัญชี", "מספר", "טלפון",
    "číslo", "số", "nomor", "номер", "αριθμός", "τηλέφωνο",
)  # fmt: skip

_ID_QUALIFIERS = word_set(
    "event process thread session product vendor device app application bundle object "
    "request transaction error build tenant subscription resource"
)
"""A word before "ID" that makes it a technical id ("Event ID 4625"), not a person's."""

CJK_NAME_CUES = ("申します", "と言います", "といいます", "我叫", "我是", "名字是", "先生", "女士", "さん", "様")  # fmt: skip  # noqa: E501
"""Chinese and Japanese words around a name ("我叫…", "…と申します"): the run is dropped."""

_ADDRESS_CUES = word_set("adresim bezorgadres lieferadresse moro vivo wohne habito woon mieszkam")
"""Words that start an address: the rest of the clause is dropped."""

_ADDRESS_WORDS = word_set(
    "address adres adresse indirizzo dirección direccion endereço anschrift adresu"
)
"""Address words that start one only after "my", "her"... or before ":" or "is"."""

_POSSESSIVES = word_set(
    "my his her our their mi mis su mon ma mes son sa mein meine meinen sein seine ihr ihre "
    "meu minha seu sua mijn zijn haar mio mia suo moje mój jego jej ship deliver send"
)

_ADDRESS_CUES_OTHER = ("배송지", "주소", "पता", "住所", "地址", "адрес", "عنوان")

_STREET_WORDS = word_set(
    "rua calle avenida av. avenue ave rue boulevard bd via viale piazza corso straße strasse "
    "str. weg gasse platz allee laan straat plein gracht kade street st. road rd. lane drive "
    "close court way crescent place square caddesi cad. sokak sok. mahallesi ulica ul. "
    "aleja al. улица ул."
)
"""Street words (capitalised, near a number): the address around them is dropped."""

_ARTICLES = word_set("a o la el le der die the an um uma")
"""Articles a speaker may put between "I am" and their name ("Sou a Maria")."""
_LOWER_STREET_WORDS = word_set(
    "rua calle avenida rue boulevard viale piazza corso straße strasse gasse allee laan straat "
    "plein gracht kade caddesi sokak mahallesi ulica aleja улица"
)
"""Street words that start an address in lower case too ("rue des Lilas"); not "via" or "way"."""
_CLAUSE_END = re.compile(r"[;!?\u3002\u061f\u0964\u2014]|\.(?:\s|$)|\s(?:y|e|and|et|und|en|i|ve)\s")


def apply_cues(vocab: Vocabulary, text: str, pieces: list[Piece], languages: int = -1) -> None:
    """Drop the values that follow a personal cue (ids, names, addresses).

    Args:
        vocab: The word lists.
        text: The question.
        pieces: Its pieces (:func:`~redaction.minimise.pieces.split_pieces`); those dropped
            get ``kind`` "drop" or "name" and ``forced``.
        languages: Bit mask of the question's languages
            (:meth:`~redaction.minimise.vocabulary.Vocabulary.question_languages`): a
            function word of another language may be a name here ("I'm li wei").
    """
    for i, piece in enumerate(pieces):
        word = piece.core.casefold()
        raw = piece.raw.casefold()
        prev = pieces[i - 1].core.casefold() if i else ""
        nxt = pieces[i + 1].core.casefold() if i + 1 < len(pieces) else ""
        nxt_core = next(
            (p.core for p in pieces[i + 1 : i + 4] if p.core.casefold() not in PARTICLES), ""
        )
        id_cue = word in _ID_CUES or any(c in piece.core for c in _ID_CUES_OTHER)
        if id_cue and not (word == "id" and prev in _ID_QUALIFIERS):
            _drop_codes_after(vocab, pieces, i)
        if word in _NAME_CUES or raw in _NAME_CUES or _ends_phrase(pieces, i, _NAME_CUE_PHRASES):
            _drop_names_after(vocab, pieces, i, languages)
        elif word in _WEAK_NAME_CUES:
            _drop_lower_names_after(vocab, pieces, i)
        address_word = word in _ADDRESS_WORDS and (
            prev in _POSSESSIVES or piece.raw.endswith(":") or nxt in ("is", "es", "est", "ist")
        )
        if (
            address_word
            or word in _ADDRESS_CUES
            or any(c in piece.core for c in _ADDRESS_CUES_OTHER)
        ):
            _drop_clause(text, pieces, i + 1)
        street = (word in _STREET_WORDS or raw in _STREET_WORDS) and (
            piece.core[:1].isupper()
            or (
                (raw.endswith(".") or word in _LOWER_STREET_WORDS)
                and capitalised(nxt_core)
                and nxt_core.casefold() not in vocab.technical
                and not is_camel(nxt_core)
            )
        )  # "Calle Mayor 5", "ul. Marszałkowska 84", "rue des Lilas 12"
        if (street or _street_suffix(word)) and _number_near(pieces, i):
            start = i
            while (
                start > 0
                and start > i - 4
                and (
                    capitalised(pieces[start - 1].core)
                    or re.fullmatch(r"\d{1,5}[A-Za-z]?", pieces[start - 1].core) is not None
                )
            ):
                start -= 1
            _drop_clause(text, pieces, start)


def _drop_codes_after(vocab: Vocabulary, pieces: list[Piece], i: int) -> None:
    for piece in pieces[i + 1 : i + 7]:
        core = piece.core
        folded = core.casefold()
        if folded in _ID_CUES or folded in (
            "is",
            "es",
            "est",
            "ist",
            "è",
            "é",
            "is:",
            "-",
            "—",
            "#",
            "no",
            "de",
        ):
            continue
        if not core:
            if piece.raw.strip() in ("-", "\u2014", "\u2013", ":") and pieces.index(piece) > i + 1:
                break
            continue
        code_like = (
            any(c.isdigit() for c in core)
            or (core.isupper() and len(core) <= 5)
            or len(core) == 1
            or (
                not core[0].isupper()
                and folded not in vocab.common
                and folded not in vocab.rare
                and folded not in vocab.technical
                and not CJK.fullmatch(core)
                and not all(p in vocab.common for p in re.split(r"[\-'\u2019]", folded) if p)
            )
        )
        if not code_like:
            break
        piece.kind, piece.forced = "drop", True
        if piece.raw.endswith((",", ";", ".", ")", ":")) and not piece.raw.endswith("..."):
            break


def _drop_lower_names_after(vocab: Vocabulary, pieces: list[Piece], i: int) -> None:
    """After "for", "from", "hi": drop the lower-case names that follow ("for jan kowal").

    A name that is also a very common word ("will", "john") is dropped only when another
    name follows it ("from john smith"), never on its own ("for will").
    """
    following = [p for p in pieces[i + 1 : i + 3] if p.core]
    if (
        len(following) == 2
        and all(p.core.islower() and p.core.isalpha() for p in following)
        and all(is_name(vocab, p.core) and p.core not in vocab.function for p in following)
        and not following[0].raw.endswith((",", ";", ".", ":"))
    ):
        for piece in following:
            piece.kind, piece.forced = "name", True
        return
    for piece in pieces[i + 1 : i + 5]:
        core = piece.core
        folded = core.casefold()
        if folded in PARTICLES:
            continue
        parts = [p for p in re.split(r"[\-'\u2019]", folded) if p]
        lower_name = (
            core.islower()
            and core.replace("-", "").replace("'", "").isalpha()
            and all(is_name(vocab, p) for p in parts)
            and folded not in vocab.very_common
        )
        if not lower_name:
            break
        piece.kind, piece.forced = "name", True
        if piece.raw.endswith((",", ";", ".", ")", ":", "!", "?")):
            break


def _drop_names_after(vocab: Vocabulary, pieces: list[Piece], i: int, languages: int) -> None:
    if pieces[i].raw.endswith((".", "!", "?")) and pieces[i].core.casefold() not in _NAME_CUES:
        return
    taken = 0
    for piece in pieces[i + 1 : i + 7]:
        core = piece.core
        if not core:
            if taken:
                break
            continue
        folded = core.casefold()
        if folded in PARTICLES and taken:
            piece.kind, piece.forced = "drop", True
            continue
        if not taken and folded in _ARTICLES:
            continue  # "Sou a Maria", "je suis la Dr", "ich bin der Max"
        plain_lower = core.islower() and folded in vocab.very_common and not is_name(vocab, core)
        if plain_lower or folded in vocab.technical or is_camel(core):
            break
        if any(c.isdigit() for c in core) or re.search(r"[:/@_=]", core):
            break
        parts = [p for p in re.split(r"[\-'\u2019.]", folded) if p]
        if len(parts) > 1 and all(p in vocab.common and not is_name(vocab, p) for p in parts):
            break  # "fleet-server": common words, not a name
        if not (
            core[0].isupper()
            or is_name(vocab, core)
            or folded not in vocab.common
            or (taken and folded not in vocab.very_common)
        ):
            break
        if vocab.function.get(folded, 0) & languages and not core.isupper():
            break
        piece.kind, piece.forced = "name", True
        taken += 1
        if piece.raw.endswith((",", ";", ".", ")", ":", "!", "?")):
            break


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


def _ends_phrase(pieces: list[Piece], i: int, phrases: Sequence[str]) -> bool:
    for phrase in phrases:
        words = phrase.casefold().split()
        if i + 1 < len(words):
            continue
        seen = [p.raw.casefold().rstrip(",:") for p in pieces[i + 1 - len(words) : i + 1]]
        if seen == words:
            return True
    return False


def _street_suffix(word: str) -> bool:
    return len(word) > 6 and word.endswith(("straße", "strasse", "straat", "gracht", "laan", "weg"))


def _number_near(pieces: list[Piece], i: int) -> bool:
    window = pieces[max(0, i - 3) : i + 5]
    return any(re.fullmatch(r"\d{1,5}[a-zA-Z]?", p.core.split(":")[-1]) for p in window)
