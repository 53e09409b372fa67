"""Bare numbers leave only with a technical anchor (:func:`drop_unanchored_numbers`).

A run of three or more digits standing alone is the commonest shape of what leaked out of
sample: the digits of a number plate ("กข 1234"), a year of birth ("geboren am … 1975"),
a house number or postcode, an account number after a cue no list had. A technical
question's bare numbers nearly always sit next to what they count: a noun that names them
("error 1030", "port 8080", "exit code 137", "Fehler 0x…", "エラー 401"), a product before
its version ("SQL Server 2019"), a unit after them ("300 ms", "512 MB"), or another number
of the same message ("ERROR 1062 (23000)"). So the rule is positive: such a number leaves
only with one of those anchors beside it, whatever else it looks like. So do numbers in a
person's shape though not bare ("TN-20931", "u48213", "cust#88213"); versions, hex, and
public codes ("22.04", "0x80070005", "KB5034441", "LNK2019") are classified as before
(:mod:`~redaction.minimise.classify`).
"""

from __future__ import annotations

import re

from redaction.minimise.pieces import CJK, Piece, word_set
from redaction.minimise.vocabulary import Vocabulary

_BARE = re.compile(r"[#(]?\d{3,}[)]?")
"""A bare number of 3+ digits, perhaps with a ``#`` or in brackets."""
_PREFIXED = re.compile(r"([A-Z]{1,3})[\-\s]?(\d{4,})")
"""A number after a short capital prefix ("TN-20931", "AE7731904", "KB5034441")."""
_PERSON_SHAPED = re.compile(r"[a-z]\d{4,}|[A-Za-z]{1,2}-\d{4,}(?:-\d{1,4})?|\d{4,}-[A-Za-z]{1,2}")
"""Numbers in a person's shape: a login's letter, a plate's or member number's letters."""
_PERSONAL_WORDS = word_set(
    "cust customer client user usr uid acc acct account member mbr emp employee staff "
    "subscriber sub patient student pupil id"
)
"""Words that make the number joined to them a person's ("cust#88213", "emp_4471")."""
_YEAR = re.compile(r"(?:19|20)\d\d")
_STATUS = re.compile(r"[1-5]\d\d")
"""An HTTP or SMTP status: kept before its reason phrase or enhanced code."""
_SMTP_STATUS = re.compile(r"\d\.\d+\.\d+")

CODE_PREFIXES = {
    "kb": 8, "ora": 5, "tns": 5, "sql": 5, "msb": 4, "lnk": 4, "cs": 4, "ts": 5, "c": 4,
    "e": 4, "w": 4, "rfc": 5, "pep": 4, "jep": 3, "jsr": 3, "cwe": 4, "bc": 5, "ap": 4,
    "sqm": 5, "ms": 6, "ni": 5, "pls": 5, "ipc": 5, "err": 5, "ks": 5, "aks": 5, "az": 5,
    "ssl": 5, "net": 4, "ie": 5, "ax": 5, "rtx": 4, "gtx": 4, "rx": 4, "mx": 4, "sm": 4,
    "dl": 4, "hp": 4, "ds": 4, "xps": 4, "ws": 4, "x": 4, "g": 4, "t": 4, "a": 4, "m": 4,
    "n": 4, "s": 4, "p": 4, "h": 4, "u": 4, "i": 4, "v": 4, "gb": 5, "mb": 5, "tb": 5,
    "iso": 5, "iec": 5, "en": 5, "din": 5, "itu": 5, "ieee": 5,
}  # fmt: skip
"""Prefixes of public codes (error codes, standards, knowledge-base articles, model
numbers) and the most digits such a code has: "KB5034441", "LNK2019", "E0425", "RTX 4090".
A short prefix outside this list, or more digits than it allows, reads as a personal
number ("TN-20931", "E1290447") and needs an anchor like a bare number."""

NUMBER_NOUNS = word_set(
    "error errors err code codes exit status port ports line lines build version ver release "
    "update patch level api http https errno pid issue issues bug bugs pr pull commit rev "
    "revision kb cve rfc iso iec pep jep jsr ieee din itu step row column col offset timeout "
    "sqlstate signal sig event id uid gid ssh tcp udp ftp smtp imap pop3 dns ldap rdp vnc "
    "mysql postgres redis sp firmware bios driver kernel model series gen generation sdk jdk "
    "jre node python java php ruby go rust gcc clang llvm ticket case incident rule "
    "job task stage frame page pages table index chapter section figure errorcode statuscode "
    "exitcode hresult msg message channel vlan slot irq ch size buffer limit threshold count "
    "fehler fehlercode erreur código codigo errore codice fout foutcode błąd kod hata hatas\u0131 "
    "ошибка ошибки ошибку код помилка помилку σφάλμα κωδικός שגיאה קוד خطأ رمز त्रुटि कोड "
    "lỗi mã kesalahan kode virhe fel felkod fejl fejlkode feil feilkode chyba hiba eroare "
    "greška villa erro evento app client server edition mode perm chmod umask événement "
    "versión versão versione versie wersja sürüm версия "
    "версии έκδοση גרסה إصدار संस्करण porta puerto poort порт"
)
"""Words that name the number after them: codes, ports, lines, versions, ids of things."""

_REPORTING = word_set(
    "returns returned return throws threw gives gave shows showed got get gets getting "
    "received responds responded answers devuelve renvoie liefert zwraca retorna restituisce "
    "geeft возвращает повертає döndürüyor 返回 报错 報錯 返す"
)
"""Words that report a status: they anchor an HTTP or SMTP status only ("returns 404"), not
any number ("shows 1979 as my birth year")."""

_NOUN_STEMS = (
    "error", "erro", "fehler", "erreur", "ошибк", "помилк", "błęd", "hata", "códig", "codic",
    "kod", "version", "versi", "wersj", "sürüm", "верси", "statu", "event", "zeile", "ligne",
    "líne", "linea", "riga", "regel", "sat\u0131r", "строк", "channel", "kanal", "port", "الخطأ",
    "actualiz", "atualiz", "aggiorn",
)  # fmt: skip
"""Beginnings of inflected forms of those words ("ошибку", "Hata kodu", "Fehlercodes")."""

_CJK_NOUN_ENDINGS = (
    "错误", "錯誤", "代码", "代碼", "错误码", "端口", "版本", "エラー", "コード", "ポート",
    "バージョン", "番号", "行", "号", "码", "碼", "番",
)  # fmt: skip
"""Endings of a Chinese or Japanese run that name the number after it."""
_CJK_VERBS = ("返回", "报错", "報錯", "返す")
"""Endings of a Chinese or Japanese run that report a status ("nginx 返回 404")."""

UNITS = word_set(
    "ms s sec secs second seconds min mins minute minutes h hr hrs hour hours day days "
    "b byte bytes kb mb gb tb pb kib mib gib tib k m px pt em dpi ppi hz khz mhz ghz rpm "
    "fps bps kbps mbps gbps w kw mah v mv ma % x "
    "rows records items files lines entries threads connections requests users tokens "
    "errors events messages pages nodes pods cores objects keys bits"
)
"""Units and counted things right after a number: "300 ms", "512 MB", "4096 tokens"."""

_REASONS = word_set(
    "ok created accepted no partial moved found see not temporary permanent permanently bad "
    "unauthorized payment forbidden method proxy request conflict gone length precondition "
    "payload uri unsupported range expectation misdirected unprocessable locked failed too "
    "upgrade internal service gateway http insufficient loop network access"
)
"""First words of HTTP reason phrases ("404 Not Found", "502 Bad Gateway")."""

_AND = word_set("or and to vs / - \u2013 bis oder und ou et o y e или и of")
"""Words between two numbers of one kind ("port 5432 or 6432", "pages 120 to 135")."""


def drop_unanchored_numbers(vocab: Vocabulary, pieces: list[Piece]) -> None:
    """Drop each kept number that reads as personal: no technical anchor, or beside a name.

    Two cases, left to right (so a number anchored by the number before it, "1062
    (23000)", is seen after that one):

    * a bare number of 3+ digits, or one after a short prefix that is no public code's
      (:data:`CODE_PREFIXES`), with no anchor: a noun naming it before it
      (:data:`NUMBER_NOUNS`), a technical term or product before it, a unit after it
      (:data:`UNITS`), an HTTP reason phrase after a status, or another kept number of the
      same kind before it ("5432 or 6432");
    * any bare number joined to a dropped word ("Витоша 99", "Moi 45", "12, காந்தி"): a
      street, a plate or a name goes whole.

    Args:
        vocab: The word lists (technical vocabulary).
        pieces: The classified pieces of one question (``kind`` set); changed in place.
    """
    for i, piece in enumerate(pieces):
        if piece.kind == "tech" and not piece.forced and _personal_number(vocab, pieces, i):
            piece.kind = "drop"


def _personal_number(vocab: Vocabulary, pieces: list[Piece], i: int) -> bool:
    """True when piece ``i`` is a number beside a dropped word or one with no anchor."""
    core = pieces[i].core
    if core.isdigit() and _beside_dropped_word(vocab, pieces, i):
        return True
    return _needs_anchor(core) and not (
        _anchor_before(vocab, pieces, i) or _anchor_after(vocab, pieces, i)
    )


def _needs_anchor(core: str) -> bool:
    """True for a bare number of 3+ digits, or a number after a prefix no public code has.

    A prefix written apart ("TN-20931", "KX-4417") must be a known code's
    (:data:`CODE_PREFIXES`); one written together with 2-3 letters and 4-6 digits is a
    vendor's error code ("TF400813", "NG8001", "YN0028"), with one letter and up to five
    digits a compiler's ("C1083"); more digits read as a document number ("AE7731904").
    """
    if _BARE.fullmatch(core) or _digits_mostly(core):
        return True
    prefixed = _PREFIXED.fullmatch(core)
    if prefixed is None:
        return False
    prefix, digits = prefixed.group(1), prefixed.group(2)
    limit = CODE_PREFIXES.get(prefix.casefold(), 0)
    if len(digits) <= limit:
        return False
    joined = len(prefix) + len(digits) == len(core)
    return not (joined and len(digits) <= (6 if len(prefix) >= 2 else 5))


def _digits_mostly(core: str) -> bool:
    """True for a number of 4+ digits in a person's shape rather than a code's.

    A lower-case letter joined to it ("u48213", a login), one or two letters hyphenated to
    it ("A-4471-22", "7741-AB", plates and member numbers), or a word for a person joined
    to it ("cust#88213", "emp_4471"). Model codes ("C9300-48P", "i7-13700K"), builds
    ("24A5264n", "2024R1"), sizes ("600x600") and settings ("rc=-1908") are other shapes.
    """
    if _PERSON_SHAPED.fullmatch(core):
        return True
    words = [w.casefold() for w in re.findall(r"[^\W\d_]+", core)]
    return bool(re.search(r"\d{4,}", core)) and any(w in _PERSONAL_WORDS for w in words)


def _names_number(folded: str) -> bool:
    """True for a word that names or reports the number after it (any inflection)."""
    folded = folded.strip(":=#-")
    last = re.split(r"[_.]", folded)[-1]  # "native_transport_port 9042", "interval.ms 300000"
    return (
        folded in NUMBER_NOUNS
        or last in NUMBER_NOUNS
        or (last != folded and last in UNITS)
        or folded.startswith(_NOUN_STEMS)
    )


def _anchor_before(vocab: Vocabulary, pieces: list[Piece], i: int) -> bool:
    """True when the piece right before ``i``, one space or less away, names the number."""
    if i == 0:
        return False
    prev, piece = pieces[i - 1], pieces[i]
    if prev.kind not in ("tech", "word") or not _close(prev, piece):
        return False
    if prev.raw.endswith((",", ";", ".", ")", "!", "?")) and not re.search(r"\d", prev.core):
        return False  # a new clause: "…, 1234"
    core = prev.core
    folded = core.casefold()
    status = _STATUS.fullmatch(piece.core) is not None
    if _names_number(folded) or (status and (folded in _REPORTING or core.endswith(_CJK_VERBS))):
        return True
    if CJK.fullmatch(core):
        return core.endswith(_CJK_NOUN_ENDINGS)
    if folded in _AND and i >= 2:  # "port 5432 or 6432"
        first = pieces[i - 2]
        return first.kind == "tech" and _close(first, prev) and bool(_BARE.fullmatch(first.core))
    if piece.quoted and piece.raw.startswith("("):
        return True  # "'… cannot join the meeting (5003)'": a message's own code
    if prev.kind != "tech":
        return False
    if re.search(r"\d", core) and not re.fullmatch(r"\d{1,2}", core):
        # a number or code of the same message: "1062 (23000)", "HTTP/1.1 500"; a number
        # of one or two digits anchors nothing ("AB 12 345" is a plate)
        return True
    if _product_word(vocab, core) or (_model_word(vocab, core) and len(piece.core) <= 4):
        # "QuickBooks 2023", "Windows 2022", "FRITZ!Box 7590", "ISO 27001"; a capitalised
        # common word only before a model number or year ("Excel 2019", "Catalyst 9200"),
        # not before an id of five digits or more ("Order 55123", "Postcode 90210")
        return True
    before = pieces[i - 2] if i >= 2 else None
    return (  # "SQL Server 2019": the second word of a product named by a known first one
        before is not None
        and before.kind == "tech"
        and _close(before, prev)
        and _product_word(vocab, before.core)
    )


def _product_word(vocab: Vocabulary, core: str) -> bool:
    """True for a technical term, a CamelCase or punctuated product, or a 3+ letter acronym."""
    folded = core.casefold()
    return (
        (folded in vocab.technical and len(core) >= 3)
        or re.search(r"[a-z][A-Z]|[A-Za-z][!+&][A-Za-z]", core) is not None
        or (core.isupper() and core.isalpha() and len(core) >= 3)
    )


def _model_word(vocab: Vocabulary, core: str) -> bool:
    """True for a capitalised word of 4+ letters that is no name ("Excel", "Catalyst")."""
    return (
        core.istitle() and core.isalpha() and len(core) >= 4 and core.casefold() not in vocab.names
    )


def _anchor_after(vocab: Vocabulary, pieces: list[Piece], i: int) -> bool:
    """True when a unit, a version, a product after a year or an HTTP reason follows."""
    if i + 1 >= len(pieces):
        return False
    nxt, piece = pieces[i + 1], pieces[i]
    if not _close(piece, nxt) or piece.raw.endswith((",", ";", ".", ")")):
        return False
    folded = nxt.core.casefold()
    if folded in UNITS or (CJK.fullmatch(nxt.core) and nxt.core.startswith(_CJK_NOUN_ENDINGS)):
        return True  # "300 ms", "4096 tokens", "50000 端口"
    if nxt.kind == "tech" and re.fullmatch(r"\d+(?:\.\d+)+", nxt.core):
        return True  # "Visual Studio 2022 17.9.6": an edition before its version
    if _YEAR.fullmatch(piece.core) and nxt.kind == "tech" and _product_word(vocab, nxt.core):
        return True  # "the 2022 FIFA World Cup", "a 2023 MacBook": a year before what it dates
    status = _STATUS.fullmatch(piece.core) is not None
    return status and (folded in _REASONS or bool(_SMTP_STATUS.fullmatch(nxt.core)))


def _beside_dropped_word(vocab: Vocabulary, pieces: list[Piece], i: int) -> bool:
    """True when a dropped word is joined to piece ``i`` and no anchor claims the number.

    A dropped word before it takes the number along ("Витоша 99", "Moi 45"); one after it
    only when nothing kept before it names the number ("12, காந்தி சாலை" at the start,
    but "Excel 2019 แล้ว", "Chrome 123 ninapotumia" keep their version).
    """
    for j in (i - 1, i + 1):
        if not 0 <= j < len(pieces):
            continue
        other = pieces[j]
        first, second = (other, pieces[i]) if j < i else (pieces[i], other)
        if (
            other.kind in ("name", "drop")
            and any(c.isalpha() for c in other.core)
            and _close(first, second)
            and not first.raw.endswith((".", ";", ":", "!", "?", ")"))
            and (j < i or not _anchor_before(vocab, pieces, i))
        ):
            return True
    return False


def _close(first: Piece, second: Piece) -> bool:
    """True when at most one space lies between ``first`` and ``second``."""
    return second.start - first.end <= 1
