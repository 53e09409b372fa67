"""Structured values found by pattern on the whole question (:func:`forced_spans`).

E-mail addresses (also "name at example dot com"), IPv4 and IPv6 addresses without a prefix
length, IBANs, UK National Insurance numbers, dates with a year (numeric or with a month
name), two to four single letters then a number ("W X 1234": a number plate), runs of digit
groups of seven digits or more (phone, card and id numbers; not versions or build numbers),
six or more digits read out in words, and the tenant's deny terms:
every piece touching one of these spans is dropped, whatever the word lists say. Also the
quoted-passage pattern (:data:`QUOTED`) and the version test shared with
:meth:`redaction.minimise.Minimiser.vouches`.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable, Iterable

from redaction.minimise.networks import is_network, is_nobodys_address
from redaction.minimise.pieces import word_set

EMAIL = re.compile(
    r"(?<![/@\w])[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[^\W\d_]{2,}(?![\w@])"
    r"|[\w.+\-]+\s*(?:\(at\)|\[at\]|\{at\})\s*[\w\-]+"
    r"(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|\sdot\s|\.)\s*[\w\-]+)+"
    r"|[\w.+\-]+(?:\s+(?:dot|punto|point|punkt|ponto|kropka)\s+[\w\-]+)*"
    r"\s(?:at|arroba|chez|bei|presso|na|chiocciola|arobase|klammeraffe|ma\u0142pa|sobaka)\s[\w\-]+"
    r"(?:(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|\s(?:dot|punto|point|punkt|ponto|kropka)\s)\s*[\w\-]+)+"
    r"|(?:\.[\w\-]+)*\.(?:com|org|net|edu|gov|io|co|uk|de|fr|es|it|nl|pl|pt|ca|cn|jp|in|br|ru|au))"
    r"(?!\w)",
    re.I,
)

_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\w|/\d)")
_IPV6 = re.compile(r"(?<![\w:])(?=[0-9a-f]*:[0-9a-f]*:)[0-9a-f:]{2,39}(?![\w:]|/\d)", re.I)
"""A run of hex digits and colons that may be an IPv6 address, compressed ("fe80::1")
or not; :func:`_is_ipv6` decides (a time like "12:30:45" is not one)."""
_IBAN = re.compile(r"(?<![\w])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?(?!\w)")
_DATE = re.compile(
    r"(?<![\w.])(?:\d{1,2}[./\-]\d{1,2}[./\-](?:19|20)\d{2}|(?:19|20)\d{2}[/\-]\d{1,2}[/\-]\d{1,2}"
    r"|(?:19|20)\d{2}\.\d{2}\.\d{2})(?!\w|\.\d)"
    # year, month and day written with CJK units ("1985年4月12日", "1990년 3월 5일"), and a
    # Vietnamese or Thai spelled-out date ("ngày 3 tháng 3 năm 1988")
    r"|(?:19|20)\d{2}\s*[年년]\s*\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일]?"
    # a Japanese era year with its month ("昭和60年4月1日"; "令和5年分", a tax year, is
    # no date of birth), or any year with month and day
    r"|(?:明治|大正|昭和|平成|令和)\s*(?:\d{1,2}|元)\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?"
    r"|\d{1,4}\s*[年년]\s*\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일]"
    r"|\d{1,2}\s+tháng\s+\d{1,2}(?:\s*(?:năm|,)\s*(?:19|20)\d{2})"
)
_NINO = re.compile(r"(?<![\w\-])[A-Z]{2}(?:[\s\-]?\d{2}){3}[\s\-]?[A-D](?![\w\-])", re.I)
"""A UK National Insurance number, with or without its spaces ("QQ 12 34 56 C")."""
_DIGIT_WORDS = (
    "zero|oh|nought|one|two|three|four|five|six|seven|eight|nine|double|triple"
    "|cero|uno|tres|cuatro|cinco|seis|siete|ocho|nueve"
    "|zéro|un|deux|trois|quatre|cinq|sept|huit|neuf"
    "|eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun"
    "|tre|quattro|cinque|sei|sette|otto|nove|um|dois|três|quatro|cinco|sete|oito"
    "|nul|een|twee|drie|zes|zeven|negen"
)
"""Digit words of the support languages; not "null", "dos" or "due", which are terms."""
_SPOKEN_DIGITS = re.compile(
    rf"(?<!\w)(?:{_DIGIT_WORDS})(?:(?:[\s,\-]|\sdash\s)+(?:{_DIGIT_WORDS})){{5,}}(?!\w)",
    re.I,
)
"""Six or more digits read out in words ("five oh three, five five five, zero one four
two"): a phone or id number spelled for a person, never a search term."""
_LETTERS_THEN_NUMBER = re.compile(r"(?<!\S)[^\W\d_](?:\s+[^\W\d_]){1,3}\s+\d{1,5}(?!\w)")
_RU_PLATE_LETTERS = (
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425ABEKMHOPCTYX"
)
"""The twelve Cyrillic letters of Russian plates (those with a Latin look-alike), and the
Latin look-alikes."""
_PLATES = re.compile(
    r"(?<![\w\-])(?:"
    r"[A-Z]{2}\d{2}\s?[A-Z]{3}"  # UK: "YD19 HFG"
    r"|[A-Z]{2}-\d{3}-[A-Z]{2}"  # France: "AB-123-CD"
    r"|[A-ZÄÖÜ]{1,3}-[A-Z]{1,2}\s?\d{1,4}[EH]?"  # Germany: "M-AB 1234"
    r"|[A-Z]{2}\s?\d{3}\s?[A-Z]{2}"  # Italy: "AB 123 CD"
    r"|\d{4}\s?[B-DF-HJ-NP-TV-Z]{3}"  # Spain: "1234 BCD"
    r"|\d{2}\s[A-Z]{1,3}\s\d{2,4}"  # Turkey: "34 ABC 123"
    r"|\d{1,3}-[A-Z]{2,3}-\d{1,3}|[A-Z]{2}-\d{2,3}-[A-Z]{1,2}"  # Netherlands: "12-ABC-3"
    r"|[A-Z]{2,3}\s\d{3,5}[A-Z]?"  # Nordic/Poland/Greece: "ABC 123", "WA 12345"
    r"|\d{2,3}[\uac00-\ud7a3]\s?\d{4}"  # Korea: "12가 3456"
    r"|\d[A-Z]{3}\d{3}"  # United States (California-style): "4DEF567"
    r"|[A-Z]{3}-\d{3,4}"  # United States (Pennsylvania, New York...): "ABC-1234"
    r"|[A-Z]{3}-?\d[A-Z]\d{2}"  # Mercosur: "ABC1D23", "ABC-1D23"
    r"|[A-Z]{2}[\s\-]?\d{1,2}[A-Z]{0,2}[\s\-]?[A-Z]{1,3}[\s\-]?\d{4}"  # India: "DL 3C AB 1234"
    r"|[A-Z]{2,3}\s(?=[A-Z0-9]{0,4}\d)(?=[0-9]{0,4}[A-Z])[A-Z0-9]{4,5}"  # Poland: "WPI 4R21"
    r"|[A-Z]{3}\s\d{2}[A-Z]"  # Sweden: "ABC 12D"
    r"|\d[A-Z][A-Z0-9]\s\d{4}"  # Czechia, Slovakia: "1AB 2345"
    r"|[A-Z]{1,2}[\s\-]\d{3,5}\s?[A-Z]{1,2}"  # Austria: "W 12345 X"
    r"|[A-Z]{2}[\s\-]\d{4}[\s\-][A-Z]{2}"  # Ukraine, Bulgaria: "AA 1234 BB"
    r"|[\u0410-\u042f\u0406\u0407\u0404]{2}\s?\d{4}\s?[\u0410-\u042f\u0406\u0407\u0404]{2}"
    # Russia, in Cyrillic capitals or their Latin look-alikes: a letter, three digits, two
    # letters and a region ("A123BC 77")
    rf"|[{_RU_PLATE_LETTERS}]\d{{3}}[{_RU_PLATE_LETTERS}]{{2}}\s?\d{{2,3}}"
    r"|[\u0391-\u03a9]{3}[\-\s]?\d{4}"  # Greece, in Greek capitals: "ABE-1234"
    # Japan: a place name, a class number, a kana and a number ("横浜 500 さ 12-34")
    r"|[\u4e00-\u9fff]{1,4}\s?\d{2,3}\s?[\u3040-\u309f]\s?\d{1,2}-\d{2}"
    r")(?![\w\-]|\.\d)"
)
"""Number plates in the national formats of the support languages' countries. A match of an
acronym and a number ("ISO 27001", "RFC 7231") is kept when the letters are a technical term
(see :func:`forced_spans`)."""
_NOT_PLATE = word_set(
    "id kb esr lts ip sp cu rc ga pr mr cve cwe rfc iso iec ieee din ansi ecma pep jsr tls ssl "
    "api sdk jdk jre http https ftp ssh tcp udp dns usb hdmi pci ram rom cpu gpu ddr sata nvme "
    "win mac sql db os pid uid gid tty vlan as bgp nas ssd hdd cpu"
)
"""Acronyms before a number that are a technical id, not a plate ("Event ID 4625",
"Firefox ESR 115", "RFC 7231")."""
_CN_PLATE = re.compile(
    r"(?<![A-Za-z0-9])[京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼]"
    r"[A-Z][·・\s]?[A-Z0-9]{5,6}(?![A-Za-z0-9])"
)
"""A Chinese number plate: a province's character, a letter and five or six letters and
digits ("京A·12345"); the characters around it may be Chinese."""
_TOWN_CAPITAL = "A-ZÀ-ÖØ-Þ\u0100-\u017f\u0386-\u038f\u0391-\u03a9\u0400-\u042f"
_POSTCODE_TOWN = re.compile(
    r"(?<![\w.\-])(?:\d{5}|\d{2}-\d{3}|\d{3}\s\d{2}|\d{4}(?:\s?[A-Z]{2})?)\s+"
    rf"(?:[{_TOWN_CAPITAL}][^\W\d_]+(?:[\s\-][{_TOWN_CAPITAL}][^\W\d_]+)?)"
)
"""A postal code and the town after it ("69003 Lyon", "00-514 Warszawa", "1012 AB
Amsterdam"); not after a capitalised product word or a number word ("SQL Server 2019
Express", "port 5432 Postgres"), and a four-digit year is not a postal code."""
_CA_POSTCODE = re.compile(
    r"\b(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT),?\s+"
    r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \-]?\d[ABCEGHJ-NPRSTV-Z]\d\b"
)
"""A Canadian postal code after its province's code ("QC H2Y 1S6", "AB T0M 1X0"): letter,
digit, letter, digit, letter, digit, from the letters Canada Post uses. Without the
province it is a colour or a key as often ("#C0C0C0", "G5S 1T2")."""
_EIRCODE = re.compile(
    r"(?<![\w\-])[AC-FHKNPRTV-Y]\d{2}\s?(?=[A-Z0-9]{0,3}\d)(?=[0-9]{0,3}[A-Z])[AC-FHKNPRTV-Y0-9]{4}(?!\w)"
)
"""An Irish Eircode: a routing key and four letters and digits, both present ("D04 K7R2")."""
_UK_POSTCODE = re.compile(r"(?:\b(?P<town>[A-Z][a-z]+),?\s)?\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b")
"""A UK postcode and the town written before it ("Leeds LS6 2AB")."""
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
    "|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
    "|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre"
    "|januar|februar|märz|juni|juli|oktober|dezember"
    "|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro"
    "|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre"
    "|januari|februari|maart|mei|augustus"
    "|maj|augusti|stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września"
    "|października|listopada|grudnia|ocak|şubat|mart|nisan|mayıs|haziran|temmuz|ağustos"  # noqa: RUF001
    "|eylül|ekim|kasım|aralık|maret|agustus|desember|января|февраля|марта|апреля|мая|июня"  # noqa: RUF001
    "|июля|августа|сентября|октября|ноября|декабря|січня|лютого|березня|квітня|травня"
    "|червня|липня|серпня|вересня|жовтня|листопада|грудня|ιανουαρίου|φεβρουαρίου|μαρτίου"
    "|απριλίου|μαΐου|ιουνίου|ιουλίου|αυγούστου|σεπτεμβρίου|οκτωβρίου|νοεμβρίου|δεκεμβρίου"
)
_WORD_DATE = re.compile(
    rf"(?<!\w)(?:\d{{1,2}}(?:st|nd|rd|th|º|\.)?\s+(?:de\s+|of\s+)?(?:{_MONTHS})\.?,?\s+(?:de\s+)?"
    rf"(?:19|20)\d{{2}}|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d{{2}})(?!\w)",
    re.I,
)
_DATE_SHAPE = re.compile(
    r"(?<![^\s(])(?=(\d{1,2}(?:st|nd|rd|th|º|\.)?\s+(?:de\s+)?(?P<after>[^\s\d,.]+)\.?,?\s+"
    r"(?:de\s+)?(?:19|20)\d{2}(?!\d)"
    r"|(?P<before>[^\s\d,.]+)\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+(?:19|20)\d{2}(?!\d)))"
)
"""A day, a word and a year, or a word, a day and a year, overlapping: a date when the word
is a month of any locale (:func:`month_names`)."""
_DIGIT_RUN = re.compile(r"(?<![\w.\-])\+?\(?\d[\d()\-. /]*\d\)?(?![\w\-]|\.\d)")
_BUILD = re.compile(r"[1-9]\d{3,4}\.\d{1,5}|[1-9]\d?(?:\.\d{1,3}){2,3}-\d{3,6}")
"""A build number: an OS build and its revision ("22631.3527", "17763.5696"), or a version
and its build ("7.2.1-69057"; not the Belgian "85.07.30-033.28", whose check digits follow
a dot). Kept only after a build cue (:data:`_BUILD_CUE`): "2255.8899" alone is a phone
number as often."""
_BUILD_CUE = re.compile(
    r"(?:\b(?:build|builds|version|versão|versión|release|rev|revision|update|os|dsm|srm|qts)"
    r"|\b(?:windows|server)(?:\s+\d{2,4})?|\d+H\d|\b\d+(?:\.\d+)+)\W{0,3}$",
    re.I,
)
"""What stands right before a build number: a build or version word, a product's short
name, a Windows release ("23H2 (22631.3527)", "Windows Server 2019 (17763.5696)"), a
version ("Windows 10.0 19045.4170")."""
_NUMBER_OK_BEFORE = word_set("kb build error errno code event status port")
_VERSION_WORDS = word_set(
    "build version versión versão versione versie wersja sürüm версия версія έκδοση"
)
"""Words before a dotted build number of long groups ("build 19045.4170")."""
_NUMBER_WORDS = _NUMBER_OK_BEFORE | word_set(
    "version release update patch firmware model id pid uid exit line step top over under to "
    "from of with about nearly than"
)
"""Words after which a number is not a postal code ("port 5432 Postgres")."""
_IP_WORDS = word_set(
    "ip ipv4 host server address gateway router ping dns proxy node vm client peer from to"
)

QUOTED = re.compile(
    r"(?<!\w)['\"\u201c\u2018\u300c\u00ab]"
    r"((?:[^'\"\u201d\u2019\u300d\u00bb]|(?<=[^\W\d_])['\u2019](?=[^\W\d_])){2,160}?)"
    r"['\"\u201d\u2019\u300d\u00bb](?!\w)"
)
"""A quoted passage: usually an error message, where a capitalised common word is kept. An
apostrophe between letters ("'Can't sync'") does not end it."""


def forced_spans(
    text: str, deny_terms: Iterable[str], technical: Callable[[str], bool] = lambda _w: False
) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` that never leave: patterns and deny terms.

    Args:
        text: The question.
        deny_terms: The tenant's terms that never leave (whole words, any case).
        technical: True for a word of the technical vocabulary ("ISO", "Kafka"): a plate
            or a postal code shape whose letters are one is not taken for a personal value.
    """
    spans: list[tuple[int, int]] = []
    patterns = (
        EMAIL, _IPV4, _IPV6, _IBAN, _DATE, _WORD_DATE, _LETTERS_THEN_NUMBER, _NINO,
        _SPOKEN_DIGITS,
    )  # fmt: skip
    for pattern in patterns:
        for m in pattern.finditer(text):
            if pattern is EMAIL and re.match(r"git@", m.group(), re.I):
                continue
            if pattern is _IPV4 and (
                version_after_product(text, m.start()) or re.search(r"(?:^|\.)0\d", m.group())
            ):
                continue  # "Rails 7.1.3.2", "firmware 7.00.00.171": a four-part version
            if pattern is _IPV6 and not _is_ipv6(m.group()):
                continue
            if pattern in (_IPV4, _IPV6) and is_nobodys_address(m.group()):
                continue  # "127.0.0.1", "0.0.0.0": an address that names no machine
            spans.append(m.span())
    for m in _DATE_SHAPE.finditer(text):
        month = (m.group("after") or m.group("before")).casefold()
        if month in month_names():
            spans.append((m.start(1), m.end(1)))  # "15 अगस्त 1992", "Hunyo 12, 1990"
    for m in _PLATES.finditer(text):
        letters = re.findall(r"[^\W\d_]+", m.group())
        acronym = (
            bool(letters)
            and m.group()[:1].isalpha()
            and (technical(letters[0]) or letters[0].casefold() in _NOT_PLATE)
        )
        if acronym and re.search(r"[\s\-]", m.group()):
            continue  # "ISO 27001", "RFC 7231", "GTX 1080": a standard or a model number
        if re.fullmatch(r"(?:19|20)\d{2}\s?[A-Z]{3}", m.group()) or is_version(m.group()):
            continue  # "2019 SQL", "2022 LTS": a year before an acronym
        spans.append(m.span())
    spans.extend(m.span() for m in _CN_PLATE.finditer(text))
    for m in _POSTCODE_TOWN.finditer(text):
        number = m.group().split()[0]
        before = re.findall(r"\S+", text[max(0, m.start() - 24) : m.start()])
        after_product = bool(before) and before[-1][:1].isupper() and before[-1].isalpha()
        after_word = bool(before) and before[-1].casefold().strip(":#") in _NUMBER_WORDS
        year = re.fullmatch(r"(?:19|20)\d{2}", number) is not None
        town = m.group().split(None, 1)[1]
        if after_product or after_word or year or technical(town.split()[0]):
            continue
        spans.append(m.span())
    for m in _UK_POSTCODE.finditer(text):
        town = m.group("town")
        start = m.end("town") + 1 if town and technical(town) else _address_lines(text, m.start())
        spans.append((start, m.end()))
    for m in _CA_POSTCODE.finditer(text):
        spans.append((_address_lines(text, m.start()), m.end()))
    for m in _EIRCODE.finditer(text):
        spans.append((_address_lines(text, m.start()), m.end()))
    for m in _DIGIT_RUN.finditer(text):
        value = m.group()
        digits = sum(c.isdigit() for c in value)
        if digits < 7:
            continue
        if re.fullmatch(r"0\d(?:[.\s]\d\d){4}", value):
            spans.append(m.span())  # "06.12.34.56.78": a French number, not a version
            continue
        groups = re.findall(r"\d+", value)
        chunks = [chunk.strip("()") for chunk in value.split()]
        build = (
            _BUILD.fullmatch(chunks[0]) is not None
            and len(chunks) == 1
            and _BUILD_CUE.search(text[max(0, m.start() - 24) : m.start()])
        )
        if build or any(is_version(chunk) for chunk in chunks) or is_network(value):
            continue  # a version or build: "124.0.6367.91", "2022 17.9.6", "23H2 (22631.3527)"
        before = re.findall(r"[^\W\d_]+", text[max(0, m.start() - 12) : m.start()])
        last = before[-1].casefold() if before else ""
        if last in _NUMBER_OK_BEFORE and len(groups) <= 2:
            continue  # "KB 5034441", "error 18456", "ERROR 1045 (28000)", "error 2004-0017"
        if last in _VERSION_WORDS and re.fullmatch(r"\d+(?:\.\d+)+", value):
            continue  # "build 19045.4170", "version 24004.1307.2669.7070"
        spans.append(m.span())
    for term in deny_terms:
        if term.strip():
            for m in re.finditer(rf"(?<!\w){re.escape(term.strip())}(?!\w)", text, re.I):
                spans.append(m.span())
    return spans


_ADDRESS_LINE_TOKEN = re.compile(r"(?:[A-Z][\w'\u2019\-]*\.?|\d{1,5}[A-Za-z]?(?:/\d{1,4})?),?")


def _address_lines(text: str, start: int) -> int:
    """Where the address lines before a postcode at ``start`` begin ("9 Quay Road, Cobh, ").

    Walks back over at most eight capitalised words and house numbers (with the commas
    between them), stopping at any other word or at the end of a sentence.
    """
    tokens = list(re.finditer(r"\S+", text[:start]))
    begin = start
    for token in reversed(tokens[-8:]):
        word = token.group()
        if not _ADDRESS_LINE_TOKEN.fullmatch(word) or word.endswith(("!", "?", ";")):
            break
        if word.endswith(".") and len(word.rstrip(".")) > 3:
            break  # the end of a sentence, not an abbreviation ("Co.", "St.")
        begin = token.start()
    return begin


def version_after_product(text: str, start: int) -> bool:
    """True when a capitalised product word (not an IP cue) stands right before ``start``.

    A dotted quad there is a four-part version ("Rails 7.1.3.2", "HyperOS 1.0.4.0"), not a
    host's address ("server 203.0.113.7", "from 198.51.100.4" stay addresses).
    """
    m = re.search(r"(?:^|\s)([A-Z][A-Za-z]+|v|version)\s$", text[:start])
    return m is not None and m.group(1).casefold() not in _IP_WORDS


@functools.cache
def month_names() -> frozenset[str]:
    """The month names of every CLDR locale Babel ships, case-folded, without a final dot.

    Wide and abbreviated, in the format and stand-alone contexts (so genitive forms such as
    "stycznia" are in), letters only and at least three characters ("Hunyo", "अगस्त",
    "Μαΐου", "sept"); Latin abbreviations of three letters are left to :data:`_MONTHS`.
    About 3,500 words, built once per process in ~1 s from the package's own data (no
    download).
    """
    from babel import Locale, UnknownLocaleError, localedata
    from wordfreq import zipf_frequency

    names: set[str] = set()
    for code in sorted({ident.split("_")[0] for ident in localedata.locale_identifiers()}):
        try:
            months = Locale.parse(code).months
        except (UnknownLocaleError, ValueError):
            continue
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for name in months.get(context, {}).get(width, {}).values():
                    folded = name.casefold().rstrip(".")
                    short = width == "abbreviated" and folded.isascii() and len(folded) <= 3
                    if len(folded) >= 3 and not short and not any(c.isdigit() for c in folded):
                        names.add(folded)
    # not "mod", "mac", "here", "out": English words that name a month elsewhere
    english = {n for n in names if n.isascii() and zipf_frequency(n, "en") >= 3.0}
    curated = set(_MONTHS.split("|"))
    return frozenset(n for n in names if n not in english or n in curated)


def is_version(chunk: str) -> bool:
    """A dotted number with a group of at most two digits after the first ("10.0.22621.0")."""
    groups = chunk.split(".")
    return (
        len(groups) >= 2
        and all(g.isdigit() for g in groups)
        and any(len(g) <= 2 for g in groups[1:])
    )


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 6
    except ValueError:
        return False
