"""Personal cues and the values after them (:func:`apply_cues`).

A cue is a word or phrase after which a personal value follows: a title or an introduction
before a name ("Mme", "my name is", "ich heiße"), a word before an id, number or login
("passport", "customer ID", "Kennzeichen"). The value after the cue is dropped and never
revived, up to the end of the value. The lists cover the support languages. Addresses have
their own module (:mod:`~redaction.minimise.addresses`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from redaction.minimise.pieces import CJK, PARTICLES, Piece, is_camel, word_set
from redaction.minimise.vocabulary import Vocabulary, is_name

_NAME_CUES = word_set(
    "mr mr. mrs mrs. ms ms. mme mme. mlle m. herr herrn frau dr dr. rev rev. sr sr. sra sra. "
    "sig. sig.ra dott. pan pani"
)
"""Titles: the name-shaped words after them are dropped."""

_NAME_CUE_PHRASES = (
    "my name is", "his name is", "her name is", "name's", "i am", "i'm", "this is", "it's",
    "it is", "me llamo", "soy", "je suis", "je m'appelle", "c'est", "sou", "eu sou",
    "mi nombre es", "ich heiße", "ich bin",
    "mi chiamo", "sono", "chamo-me",
    "meu nome é", "ik ben", "mijn naam is", "nazywam się", "jestem", "меня зовут",
    "benim ad\u0131m", "ben", "t.a.v.", "ako si", "ako ay", "ang pangalan ko ay",
    "jina langu ni", "naitwa", "mimi ni", "ég heiti", "fy enw i yw", "fy enw yw", "nire izena",
    "nama saya", "minu nimi on", "mani sauc", "volám sa", "jmenuji se", "jmenuju se",
    "zovem se", "казвам се", "мене звати", "nimeni on",  # noqa: RUF001
    "in the name of", "on behalf of", "em nome de", "a nombre de", "en nombre de", "au nom de",
    "a nome di", "op naam van", "auf den namen", "im namen von", "na imię",
)  # fmt: skip
"""Phrases that introduce the speaker's name: the name-shaped words after them are dropped."""

_WEAK_NAME_CUES = word_set(
    "hi hey hello hola salut bonjour hallo ciao olá for from by para pour für per"
)
"""Words before which a name is common but not certain: only lower-case names are dropped."""

_HANDLE_CUES = word_set(
    "nickname nick alias pseudo pseudonym spitzname apodo apelido soprannome bijnaam "
    "псевдоним ник gamertag username benutzername gebruikersnaam"
)
"""Cues before a chosen name, which may be CamelCase ("nickname BunnyHopQueen"); not
"handle" or "login", which are verbs as often ("how to handle TypeError")."""

_ID_CUES = _HANDLE_CUES | word_set(
    "passport pasaporte passeport reisepass passaporto paszport pasaport паспорт "
    "personalausweis ausweis dni nie nif nir cpf rg pesel bsn ssn sin aadhaar pan nino "
    "plate targa kenteken kennzeichen matrícula matricula immatriculation rejestracyjny "
    "plaka car customer client cliente kunde kundennummer klant klantnummer member "
    "membership employee mitarbeiter matricola utente user username login gamertag handle "
    "number account konto cuenta conto compte id ident n° no. nº número numero nummer numer "
    "iban nib card tarjeta carte karte carta phone tel tel. telephone telefon teléfono "
    "téléphone telefone telefono móvil mobile cell mobil handy celular cellulare dob born "
    "geboren nacido nacida née né nato nata numéro abonné abonnée abonnement abonado "
    "abbonato abonnee abonent subscriber socio socia tessera miembro membre mitglied "
    "członek üye contract contrato contrat contratto vertrag umowa umowy sözleşme договор "
    "договора klient klienta müşteri клиент клиента hesap hesabı numaram numarası patient "  # noqa: RUF001
    "paciente paziente patiënt pacjent usuario utilisateur identifiant benutzer benutzername "
    "gebruikersnaam kullanıcı логин пользователь vehicle véhicule vehículo veicolo fahrzeug "  # noqa: RUF001
    "voertuig pojazd araç registration reg reg. placa tablica rejestracja plakası plakam "  # noqa: RUF001
    "rendszám spz авто машина akun akaun"
)
"""Words after which an id, number or login follows: code-like words after them are dropped."""

_ID_CUES_OTHER = (
    "لوحة", "رقم", "护照", "手机号", "电话", "身份证", "연락처", "전화", "주민등록번호",
    "आधार", "मोबाइल", "番号", "번호", "아이디", "계정", "会員", "社員", "顧客", "账号", "帐号",
    "用户名", "ユーザー名", "アカウント", "사용자", "หมายเลข", "เบอร์", "บัญชี", "מספר", "טלפון",
    "číslo", "số", "nomor", "номер", "αριθμ", "τηλέφωνο", "διαβατήρι", "المستخدم", "यूज़रनेम",
    "उपयोगकर्ता", "जन्मतिथि", "जन्म", "微信号", "qq号", "昵称", "משתמש", "ת.ז",
)  # fmt: skip

_ASIDE_CUES = _HANDLE_CUES | word_set("user login handle id email e-mail mail")
"""Words in an aside that make the word before it a login ("nora.k (my AD username)"); not
"phone" or "account" ("iPhone (my work phone)")."""

_NOT_PERSONAL_NUMBER = word_set(
    "build line version port page row column error issue bug ticket step release serial "
    "model part phase exit status event"
)
"""Words before "number" that make it a technical one ("build number of Windows 11")."""

_ID_CUE_PHRASES = (
    "hộ chiếu", "căn cước", "screen name", "display name",
)  # fmt: skip
"""Two-word id cues ("hộ chiếu", Vietnamese for passport; "screen name")."""

_MY = word_set(
    "my mein meine mi mon ma meu minha mijn mio mia moje mój benim мой моя мій моя min mitt "
    "minun můj moj saya ku aku"
)
"""A possessive: it opens an aside naming the value before it ("nora.k (my AD login)"), and
may stand between an id cue and its value ("User ID saya RIZ…")."""

_NUMBER_CUES = word_set("number numéro número numero nummer numer nº n° nr num")
_NUMBER_CUES_OTHER = ("رقم", "číslo", "αριθμ", "номер", "số", "nomor", "नंबर", "संख्या", "מספר")
"""Words for "number" (and stems of uncased or inflected scripts): a value may come one or
two words later ("número de empleado EMP-33817")."""

_ID_ENDINGS = ("nummer", "number", "numero", "número", "numer", "kennung", "konto", "nr")
"""Endings of compound words for a personal number ("Personalnummer", "Mitgliedsnummer",
"Kundenkonto", "Kundennr.")."""

_ID_NOUNS = word_set(
    "ref ref. reference referenz référence referencia riferimento code código codice kod "
    "nr nr. num num."
)
"""Nouns between an id cue and its value ("customer ref", "account code"): skipped there,
and no cue themselves ("error code 0x80070005")."""

_PREPOSITIONS = word_set("on at for in with en sur bei auf na w em su")
_COPULAS = word_set("is es est ist è é = is: είναι это")

_ID_QUALIFIERS = word_set(
    "event process thread session product vendor device app application bundle object "
    "request transaction error build tenant subscription resource image instance "
    "correlation trace span commit container volume snapshot disk node pod job task run "
    "message file group role policy zone region key cluster network vpc subnet"
)
"""A word before "ID" that makes it a technical id ("Event ID 4625"), not a person's."""

CJK_NAME_CUES = ("申します", "と言います", "といいます", "我叫", "我是", "名字是", "先生", "女士", "さん", "様")  # fmt: skip  # noqa: E501
"""Chinese and Japanese words around a name ("我叫…", "…と申します"): the run is dropped."""

_CONTACT_CUES = word_set(
    "phone tel tel. telephone telefon teléfono téléphone telefone telefono телефон"
)
"""Id cues that go with their value: a phone word names no product a search needs (other
id cues, "user", "account", "ID", "card", are technical words too: they stay)."""

_ARTICLES = word_set("a o la el le der die the an um uma")
"""Articles a speaker may put between "I am" and their name ("Sou a Maria")."""


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
        id_cue = (
            word in _ID_CUES
            or any(c in word for c in _ID_CUES_OTHER)
            or (len(word) > 7 and word.endswith(_ID_ENDINGS) and word.isalpha())
        )
        id_phrase = _ends_phrase(pieces, i, _ID_CUE_PHRASES)
        is_id = (id_cue or id_phrase) and not (word == "id" and prev in _ID_QUALIFIERS)
        if is_id and _drop_codes_after(vocab, pieces, i) and word in _CONTACT_CUES:
            _drop_cue(pieces, i, None)
        if i and piece.raw.startswith("(") and word in _MY and _names_value_before(pieces, i):
            before = pieces[i - 1]
            before.kind, before.forced = "drop", True
        name_phrase = _ends_phrase(pieces, i, _NAME_CUE_PHRASES)
        if word in _NAME_CUES or raw in _NAME_CUES or name_phrase:
            if _drop_names_after(vocab, pieces, i, languages):
                _drop_cue(pieces, i, name_phrase)
        elif word in _WEAK_NAME_CUES:
            _drop_lower_names_after(vocab, pieces, i, languages)


def _drop_cue(pieces: list[Piece], i: int, phrase: str | None) -> None:
    """Drop the cue ending at ``i`` (a word, or ``phrase``'s words) once its value is dropped.

    A cue without its value tells a search engine nothing and says what was there ("I am
    phone What is the latest release" was the demo's query once its name and number had
    gone). Only name cues and :data:`_CONTACT_CUES` go, and only when their value was
    taken: "phone" in "my phone app crashes" stays.
    """
    for piece in pieces[i + 1 - len(phrase.split()) if phrase else i : i + 1]:
        piece.kind, piece.forced = "drop", True


def _drop_codes_after(vocab: Vocabulary, pieces: list[Piece], i: int) -> bool:
    """Drop the code-like words after the id cue at ``i``; True when any was dropped.

    The value is dropped to its end. Between the cue and the value may stand other cue
    words, nouns such as "ref" or "code", a copula, or a preposition and one word before a
    copula ("Account on example.com is ..."). After a word for "number", up to two other
    words may stand before a value holding a digit ("número de empleado es EMP-33817",
    "رقم الموظف 778120"). After a word for a handle, a CamelCase word is the value
    ("nickname BunnyHopQueen").
    """
    before = pieces[i - 1].core.casefold() if i else ""
    number_cue = _is_number_cue(pieces[i].core.casefold()) and before not in _NOT_PERSONAL_NUMBER
    handle_cue = pieces[i].core.casefold() in _HANDLE_CUES
    skipped, taken = 0, False
    if (
        i + 3 < len(pieces)
        and pieces[i + 1].raw.casefold() in _PREPOSITIONS
        and pieces[i + 3].raw.casefold() in _COPULAS
    ):
        i += 3
    for at, piece in enumerate(pieces[i + 1 : i + 7], start=i + 1):
        core = piece.core
        folded = core.casefold()
        bare = re.split(r"['\u2019]", folded)[-1]  # "d'abonné": the cue after the elision
        if (
            folded in _ID_CUES
            or bare in _ID_CUES
            or folded in _ID_NOUNS
            or piece.raw.casefold() in _ID_NOUNS
            or folded in _COPULAS
            or folded in _MY
            or folded in ("-", "—", "#", "no", "de", "n", "n.º", "nº", "n°")
        ):
            continue
        if not core:
            if piece.raw.strip() in ("-", "\u2014", "\u2013", ":") and pieces.index(piece) > i + 1:
                break
            continue
        code_like = (
            any(c.isdigit() for c in core)
            or (is_camel(core) and handle_cue and folded not in vocab.technical)
            or (core.isupper() and len(core) <= 5)
            or (  # "HKARIMI_RW": a database login; not "ERROR_ACCESS_DENIED"
                core.isupper()
                and "_" in core
                and not all(
                    p.casefold() in vocab.common or p.casefold() in vocab.technical
                    for p in core.split("_")
                    if p
                )
            )
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
            if (
                number_cue
                and not taken
                and skipped < 2
                and not core[:1].isupper()
                and not re.search(r"[._/:]", core)
                and _digit_follows(pieces, at, 2 - skipped)
            ):
                skipped += 1
                continue
            break
        piece.kind, piece.forced = "drop", True
        taken = True
        if piece.raw.endswith((",", ";", ".", ")", ":")) and not piece.raw.endswith("..."):
            break
    return taken


def _names_value_before(pieces: list[Piece], i: int) -> bool:
    """True when the aside opened at ``i`` ("(my", "(mi") names an id, login or handle.

    "nora.k (my AD username)", "hunter2_rob (my Discord handle)": a login word
    (:data:`_ASIDE_CUES`) among the next three words, before the aside closes.
    """
    for piece in pieces[i : i + 4]:
        folded = piece.core.casefold()
        if piece is not pieces[i] and folded in _ASIDE_CUES:
            return True
        if piece.raw.endswith(")"):
            return False
    return False


def _is_number_cue(word: str) -> bool:
    """True for a word for "number" ("número", "Personalnummer", "رقم", "αριθμός")."""
    return (
        word.rstrip(".:") in _NUMBER_CUES
        or any(c in word for c in _NUMBER_CUES_OTHER)
        or (len(word) > 7 and word.endswith(_ID_ENDINGS[:5]) and word.isalpha())
    )


def _digit_follows(pieces: list[Piece], at: int, within: int) -> bool:
    """True when one of the ``within`` pieces after ``pieces[at]`` holds a digit, in its sentence.

    Copulas do not count ("αριθμός διαβατηρίου μου είναι AK…").
    """
    if pieces[at].raw.endswith((".", "!", "?", ";", ")")):
        return False
    later_pieces = (p for p in pieces[at + 1 :] if p.core.casefold() not in _COPULAS)
    for later in itertools.islice(later_pieces, within):
        if any(c.isdigit() for c in later.core):
            return True
        if later.raw.endswith((".", "!", "?", ";", ")")):
            return False
    return False


def _drop_lower_names_after(vocab: Vocabulary, pieces: list[Piece], i: int, languages: int) -> None:
    """After "for", "from", "hi": drop the lower-case names that follow ("for jan kowal").

    A name that is also a very common word ("will", "john"), or a common word of the
    question's languages ("for repo"), is dropped only when another name follows it
    ("from john smith"), never on its own ("for will").
    """
    following = [p for p in pieces[i + 1 : i + 3] if p.core]
    if (
        len(following) == 2
        and all(p.core.islower() and p.core.isalpha() for p in following)
        and is_name(vocab, following[0].core)
        and _surname_here(vocab, following[1])
        and not any(p.core in vocab.function or p.core in vocab.technical for p in following)
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
            and not vocab.common.get(folded, 0) & languages
        )
        if not lower_name:
            break
        piece.kind, piece.forced = "name", True
        if piece.raw.endswith((",", ";", ".", ")", ":", "!", "?")):
            break


def _surname_here(vocab: Vocabulary, piece: Piece) -> bool:
    """True when ``piece``, after a given name, reads as a surname.

    A name of the lists; or an unquoted word that is no common English word ("yusuf
    demirtaş"; not "repo 'baseos'", a quoted literal).
    """
    if is_name(vocab, piece.core):
        return True
    english = 1  # bit 0 of the language masks: LANGUAGES[0], "en"
    quoted = piece.raw[:1] in "'\"`\u2018\u201c"
    return not quoted and not vocab.common.get(piece.core, 0) & english


def _drop_names_after(vocab: Vocabulary, pieces: list[Piece], i: int, languages: int) -> bool:
    """Drop the name-shaped words after the name cue at ``i``; returns whether any was."""
    if pieces[i].raw.endswith((".", "!", "?")) and pieces[i].core.casefold() not in _NAME_CUES:
        return False
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
    return taken > 0


def _ends_phrase(pieces: list[Piece], i: int, phrases: Sequence[str]) -> str | None:
    """The phrase of ``phrases`` whose words end at ``pieces[i]`` (``None``: none does)."""
    for phrase in phrases:
        words = phrase.casefold().split()
        if i + 1 < len(words):
            continue
        seen = [p.raw.casefold().rstrip(",:") for p in pieces[i + 1 - len(words) : i + 1]]
        if seen == words:
            return phrase
    return None
