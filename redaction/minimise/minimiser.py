"""Builds a web query from the parts of a question that are known to be safe (issue 11).

Redaction removes what a recogniser detects; whatever it does not detect leaves. Out of
sample that was about half the personal values. This module turns the test around: a
piece of the question leaves only when it is *known to be safe*, and everything else is
dropped. Presidio then runs on what is left as a second layer
(:class:`redaction.egress.MinimisingRedactor`).

A piece is known to be safe when it is one of:

* a well-formed technical token: versions ("1.30", "124.0.6367.91", "22H2", "v0.36.1"),
  error codes ("SEC_ERROR_UNKNOWN_ISSUER", "0x80070005", "ORA-12514"), identifiers with
  ``_ . / : @ ::`` whose word parts are known words ("security.enterprise_roots.enabled",
  "@vitejs/plugin-react", "policies.json"), flags ("--legacy-peer-deps"), CamelCase
  product tokens ("CrashLoopBackOff", "macOS") and short ALL-CAPS acronyms ("HMRC");
* a common word of a language (wordfreq's lists, frequency of at least one in a million;
  rarer English words only in lower case and inside identifiers);
* a term of the technical vocabulary shipped beside this file (``technical_terms.txt``);
* a word the tenant's own corpus holds (``known_terms``, optional and injectable: asked
  once per question, with the words no list knows; see :class:`corpus.known_terms.
  IndexVocabulary`); never a word of the name lists;
* in Chinese and Japanese, which have no spaces, a run of characters covered by words of
  the vocabulary (greedy longest match).

And it is dropped, whatever the above says, when it is:

* a given name or surname of any locale Faker ships (unless it is a very common word in
  lower case, a technical term, or a capitalised word right before a version: "Hugo 0.125");
  a capitalised common word next to a name is dropped with it ("Summer Rain");
* the value after a cue ("passport", "customer ID", "Kennzeichen", "my name is", "Mme",
  "address" and their equivalents in the corpus languages), up to the end of the value;
* a structured value found by pattern on the whole question: e-mail addresses (also
  "name at example dot com"), IP addresses without a prefix length, IBANs, dates with a
  year, and runs of digit groups of seven digits or more (phone, card and id numbers);
* one of the tenant's deny terms.

Too little left: when fewer than ``min_terms`` content terms are kept, :class:`Minimised`
carries a ``reason`` and nothing should be sent (the graph skips the web round).

The word lists come from PyPI packages installed with the service (``wordfreq`` and
``faker``); nothing is downloaded at run time. Loading them takes 1.5-2.5 s and about
320 MB of resident memory, once per process (:func:`load_vocabulary`; 600k common words,
174k rarer English words, 61k names).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LANGUAGES: tuple[str, ...] = (
    "en", "es", "fr", "de", "pt", "it", "nl", "pl", "tr", "ru", "uk", "el", "sv",
    "ar", "hi", "ko", "ja", "zh",
)  # fmt: skip
"""wordfreq languages whose common words count as safe (those of the support languages)."""

MIN_TERMS = 2
"""Fewer content terms than this left after minimising: the web round is skipped."""

TERMS_FILE = Path(__file__).parents[1] / "technical_terms.txt"

_MAX_CORPUS_WORDS = 24
_VERY_COMMON_ZIPF = 4.0
_RARE_EN_ZIPF = 1.5
_FUNCTION_ZIPF = 5.5
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]+")
_PIECE = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]+"
    r"|[^\s\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]+"
)
_EDGE = (
    "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb()[]{}<>,;:.!?"
    "\u3001\u3002\uff0c\uff1a\uff1f\uff01\u300c\u300d\u300e\u300f\uff08\uff09"
    "\u2014\u2013\u060c\u061b\u061f\u0964"
)
_SPLIT = re.compile(r"[._/:@\-=+~#%$\\]+")
_VERSIONISH = re.compile(r"v?\d+(?:[.\-]\d+)*[a-z]{0,4}\d*(?:[+~\-][\w.~+\-]*)?", re.I)


def _words(text: str) -> frozenset[str]:
    """A set of words written as one space-separated string (keeps the lists readable)."""
    return frozenset(text.split())


_EXTENSIONS = _words(
    "json yaml yml toml xml ini conf cfg log txt csv md py js ts jsx tsx java jar class go rs "
    "rb php pl sh ps1 bat exe dll sys so dylib msi deb rpm apk dmg iso zip gz tar tgz bz2 7z "
    "pdf docx xlsx pptx html htm css sql db sqlite pem crt key pub p12 pfx cer lock env "
    "service socket timer plist reg vhdx vmdk img bin efi git"
)
_EMAIL = re.compile(
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
_NUMBER_OK_BEFORE = _words("kb build error errno code event status port")

_NAME_CUES = _words(
    "mr mr. mrs mrs. ms ms. mme mme. mlle m. herr herrn frau dr dr. rev rev. sr sr. sra sra. "
    "sig. sig.ra dott. pan pani"
)
"""Titles: the name-shaped words after them are dropped."""
_NAME_CUE_PHRASES = (
    "my name is", "i am", "i'm", "this is", "it's", "it is", "me llamo", "soy", "je suis",
    "je m'appelle", "c'est", "ich heiße", "ich bin", "mi chiamo", "sono", "chamo-me",
    "meu nome é", "ik ben", "mijn naam is", "nazywam się", "jestem", "меня зовут",
    "benim ad\u0131m", "ben", "t.a.v.",
)  # fmt: skip
"""Phrases that introduce the speaker's name: the name-shaped words after them are dropped."""
_WEAK_NAME_CUES = _words(
    "hi hey hello hola salut bonjour hallo ciao olá for from para pour für per"
)
"""Words before which a name is common but not certain: only lower-case names are dropped."""
_ID_CUES = _words(
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
    "आधार", "मोबाइल",
)  # fmt: skip
_ID_QUALIFIERS = _words(
    "event process thread session product vendor device app application bundle object "
    "request transaction error build tenant subscription resource"
)
"""A word before "ID" that makes it a technical id ("Event ID 4625"), not a person's."""
_CJK_NAME_CUES = ("申します", "と言います", "といいます", "我叫", "我是", "名字是", "先生", "女士", "さん", "様")  # fmt: skip  # noqa: E501
_ADDRESS_CUES = _words("adresim bezorgadres lieferadresse moro vivo wohne habito woon mieszkam")
"""Words that start an address: the rest of the clause is dropped."""
_ADDRESS_WORDS = _words(
    "address adres adresse indirizzo dirección direccion endereço anschrift adresu"
)
"""Address words that start one only after "my", "her"... or before ":" or "is"."""
_POSSESSIVES = _words(
    "my his her our their mi mis su mon ma mes son sa mein meine meinen sein seine ihr ihre "
    "meu minha seu sua mijn zijn haar mio mia suo moje mój jego jej ship deliver send"
)
_ADDRESS_CUES_OTHER = ("배송지", "주소", "पता", "住所", "地址", "адрес", "عنوان")
_STREET_WORDS = _words(
    "rua calle avenida av. avenue ave rue boulevard bd via viale piazza corso straße strasse "
    "str. weg gasse platz allee laan straat plein gracht kade street st. road rd. lane drive "
    "close court way crescent place square caddesi cad. sokak sok. mahallesi ulica ul. "
    "aleja al. улица ул."
)
"""Street words (capitalised, near a number): the address around them is dropped."""
_CLAUSE_END = re.compile(r"[;!?\u3002\u061f\u0964\u2014]|\.(?:\s|$)|\s(?:y|e|and|et|und|en|i|ve)\s")
_PARTICLES = _words(
    "van von der den de del della di da dos das du le la y bin ibn al el ter ten ní nic mac "
    "ó bint abu"
)
"""Lower-case words that join the parts of a name ("Pieter van der Berg")."""
_HANGUL_ENDINGS = (
    "입니다", "습니다", "합니다", "했습니다", "에서", "에게", "으로", "하고", "이고", "이며",
    "에", "를", "을", "이", "가", "은", "는", "의", "로", "와", "과", "도", "만", "께서",
)  # fmt: skip
_QUOTED = re.compile(
    r"(?<!\w)['\"\u201c\u2018\u300c\u00ab]([^'\"\u201d\u2019\u300d\u00bb]{2,160}?)['\"\u201d\u2019\u300d\u00bb](?!\w)"
)
"""A quoted passage: usually an error message, where a capitalised common word is kept."""


@dataclass(frozen=True)
class Vocabulary:
    """The word lists the minimiser trusts and distrusts, all case-folded.

    Attributes:
        common: Common words of :data:`LANGUAGES` (wordfreq, zipf >= 3).
        very_common: Words at zipf >= 4 in some language: safe in lower case even when
            they are also names ("will", "may", "page").
        function: Words at zipf >= 5.5 ("my", "will", "can"): safe even capitalised.
        rare: Rarer English words (zipf >= 1.5), trusted in lower case and inside
            identifiers only ("auth", "actuator").
        names: Given names and surnames of every Faker locale, and their hyphen parts.
        technical: The shipped technical vocabulary (``technical_terms.txt``).
        longest_cjk: Length of the longest Chinese or Japanese entry in ``common``.
    """

    common: frozenset[str]
    very_common: frozenset[str]
    function: frozenset[str]
    rare: frozenset[str]
    names: frozenset[str]
    technical: frozenset[str]
    longest_cjk: int = 8


@lru_cache(maxsize=1)
def load_vocabulary(languages: Sequence[str] = LANGUAGES) -> Vocabulary:
    """Load the word lists from the installed ``wordfreq`` and ``faker`` packages.

    Takes 1.5-2.5 s and about 320 MB resident; cached, so one process loads them once.

    Raises:
        ModuleNotFoundError: ``wordfreq`` or ``faker`` is not installed.
    """
    from wordfreq import get_frequency_dict

    common: set[str] = set()
    very_common: set[str] = set()
    function: set[str] = set()
    for lang in languages:
        for word, freq in get_frequency_dict(lang, "small").items():
            common.add(word)
            if freq >= 10 ** (_VERY_COMMON_ZIPF - 9):
                very_common.add(word)
            if freq >= 10 ** (_FUNCTION_ZIPF - 9):
                function.add(word)
    rare = {
        w for w, f in get_frequency_dict("en", "large").items() if f >= 10 ** (_RARE_EN_ZIPF - 9)
    }
    longest = max((len(w) for w in common if _CJK.fullmatch(w)), default=1)
    return Vocabulary(
        common=frozenset(common),
        very_common=frozenset(very_common),
        function=frozenset(function),
        rare=frozenset(rare),
        names=frozenset(_faker_names()),
        technical=frozenset(_technical_terms()),
        longest_cjk=min(longest, 10),
    )


def _faker_names() -> set[str]:
    import faker.providers.person as person

    names: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        for attr in dir(provider):
            if not attr.startswith(("first_name", "last_name", "middle_name")):
                continue
            value = getattr(provider, attr)
            if isinstance(value, (list, tuple, dict, set, frozenset)):
                for name in value:
                    folded = str(name).casefold()
                    names.add(folded)
                    names.update(p for p in re.split(r"[\s\-']+", folded) if len(p) > 1)
    return names


def _technical_terms() -> set[str]:
    terms: set[str] = set()
    for line in TERMS_FILE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            terms.update(word.casefold() for word in line.split())
    return terms


@dataclass(frozen=True)
class Minimised:
    """What is left of a question after minimising.

    Attributes:
        text: The kept pieces in their order; pieces that were next to each other keep the
            text between them ("Rats! WebGL hit a snag."), a gap left by a dropped piece
            becomes one space.
        terms: Content terms kept: technical tokens, and words of 3+ letters that are not
            function words (zipf < 5.5: "release" counts, "the" and "what" do not).
        dropped: Pieces dropped.
        reason: Set when fewer than ``min_terms`` content terms are left: why the query
            should not be sent. None when it may be sent.
    """

    text: str
    terms: int
    dropped: int
    reason: str | None = None


@dataclass
class _Piece:
    start: int
    end: int
    raw: str
    core: str
    keep: bool = False
    kind: str = ""  # "tech", "word", "name", "drop", "punct"
    quoted: bool = False  # inside a quoted passage (an error message, usually)
    forced: bool = False  # dropped by a pattern, cue or deny term: never revived


class Minimiser:
    """Keeps the known-safe pieces of a question; see the module docstring.

    Pure and cheap (well under a millisecond per question once the vocabulary is loaded);
    makes no network call.
    """

    def __init__(
        self,
        vocabulary: Vocabulary | None = None,
        *,
        known_terms: Callable[[Collection[str]], Collection[str]] | None = None,
        min_terms: int = MIN_TERMS,
    ) -> None:
        """Set up a minimiser.

        Args:
            vocabulary: Word lists; default :func:`load_vocabulary`.
            known_terms: Optional: given the case-folded words of a question that no list
                knows, returns those the tenant's own corpus holds. Called at most once per
                :meth:`minimise`; such words are kept unless they are names.
            min_terms: Fewer content terms than this left: ``reason`` is set.

        Raises:
            ValueError: ``min_terms`` is negative.
        """
        if min_terms < 0:
            raise ValueError(f"min_terms must be >= 0, got {min_terms}")
        self._vocab = vocabulary or load_vocabulary()
        self._lookup = known_terms
        self._corpus_words: frozenset[str] = frozenset()
        self._min_terms = min_terms

    def minimise(
        self,
        text: str,
        deny_terms: Iterable[str] = (),
        *,
        drop: Sequence[tuple[int, int]] = (),
    ) -> Minimised:
        """Return the known-safe pieces of ``text``.

        Args:
            text: A question or query in any language and script.
            deny_terms: The tenant's terms that must never leave (whole words, any case).
            drop: ``(start, end)`` character spans of ``text`` found by another detector
                (Presidio on the whole question); every piece touching one is dropped.

        Returns:
            The minimised text, with a ``reason`` when too little is left to search on.
        """
        pieces = _pieces(text)
        self._corpus_words = self._ask_corpus(pieces)
        for m in _QUOTED.finditer(text):
            for piece in pieces:
                if m.start() <= piece.start and piece.end <= m.end():
                    piece.quoted = True
        forced = [*_forced_spans(text, deny_terms), *drop]
        for piece in pieces:
            if any(s < piece.end and piece.start < e for s, e in forced):
                piece.kind, piece.forced = "drop", True
        self._apply_cues(text, pieces)
        caps_text = _mostly_caps(pieces)
        for i, piece in enumerate(pieces):
            if not piece.forced:
                piece.kind = self._classify(pieces, i, caps_text)
        self._spread_names(pieces, caps_text)
        for piece in pieces:
            piece.keep = piece.kind in ("tech", "word")
        for i, piece in enumerate(pieces):
            if piece.kind == "punct":
                piece.keep = _neighbour_kept(pieces, i, -1) and _neighbour_kept(pieces, i, 1)
        out, last = [], None
        for piece in pieces:
            if not piece.keep:
                continue
            if last is not None:
                gap = text[last.end : piece.start]
                between = [p for p in pieces if last.end <= p.start and p.end <= piece.start]
                out.append(" " if between else gap)
            out.append(piece.raw)
            last = piece
        minimised = re.sub(r"\s{2,}", " ", "".join(out)).strip()
        terms = sum(1 for p in pieces if p.keep and self._is_content(p))
        dropped = sum(1 for p in pieces if not p.keep and p.kind != "punct")
        reason = None
        if terms < self._min_terms:
            reason = (
                f"too little known-safe text to search on: {terms} content term(s) kept, "
                f"{dropped} piece(s) dropped"
            )
        return Minimised(minimised, terms, dropped, reason)

    def vouches(self, entity: str, span: str) -> bool:
        """True when a second-layer detection in the minimised text is a known false shape.

        Only three shapes, each checked by this module's own stricter rules:

        * ``EMAIL_ADDRESS`` that is not an address by :data:`_EMAIL` (a domain needs a
          letters-only top level, and nothing before the local part may be ``/`` or ``@``:
          "@angular/core@17.3.1", "git@gitlab.com:group/repo.git");
        * ``PHONE_NUMBER`` that is a dotted version ("124.0.6367.91");
        * ``PERSON`` whose words are all common words or technical terms and none is a
          given name or surname in the name lists ("Little Snitch", "Okta Verify").

        Every other detection (IP addresses, cards, IBANs, national ids, deny terms...) is
        never vouched for.
        """
        if entity == "EMAIL_ADDRESS":
            return span.casefold().startswith("git@") or _EMAIL.search(span) is None
        if entity == "PHONE_NUMBER":
            return _is_version(span.strip())
        if entity == "PERSON":
            words = [w.casefold() for w in re.findall(r"[^\W\d_]{2,}", span)]
            return bool(words) and all(
                (w in self._vocab.common or w in self._vocab.technical) and not self._is_name(w)
                for w in words
            )
        return False

    # --- classification -------------------------------------------------------------

    def _is_content(self, piece: _Piece) -> bool:
        if piece.kind == "tech":
            return True
        word = piece.core.casefold()
        if _CJK.fullmatch(piece.core):
            return len(piece.core) >= 2
        return len(word) >= 3 and word not in self._vocab.function

    def _ask_corpus(self, pieces: Sequence[_Piece]) -> frozenset[str]:
        """The words of ``pieces`` that only the tenant's corpus could vouch for, looked up."""
        if self._lookup is None:
            return frozenset()
        vocab = self._vocab
        unknown = {
            word
            for piece in pieces
            for word in (w.casefold() for w in re.findall(r"[^\W\d_]{3,}", piece.core))
            if word not in vocab.common
            and word not in vocab.technical
            and word not in vocab.names
            and not _CJK.fullmatch(word)
        }
        if not unknown:
            return frozenset()
        return frozenset(self._lookup(sorted(unknown)[:_MAX_CORPUS_WORDS])) & unknown

    def _known(self, folded: str) -> bool:
        return folded in self._corpus_words

    def _word_known(self, word: str) -> bool:
        folded = word.casefold()
        return (
            folded in self._vocab.common or folded in self._vocab.technical or self._known(folded)
        )

    def _is_name(self, word: str) -> bool:
        folded = word.casefold()
        return folded in self._vocab.names and folded not in self._vocab.technical

    def _classify(self, pieces: list[_Piece], i: int, caps_text: bool) -> str:
        piece = pieces[i]
        core = piece.core
        if not core:
            return "punct"
        if _CJK.fullmatch(core):
            return self._classify_cjk(core)
        folded = core.casefold()
        if folded in self._vocab.technical or (self._known(folded) and not self._is_name(core)):
            return "tech"
        if re.fullmatch(r"--?[^\W\d_][\w\-.=]*", core):
            return "tech"  # a command-line flag: "--legacy-peer-deps", "-Xmx"
        scoped = re.fullmatch(r"@([a-z0-9][\w.\-]*)/[\w.\-]+(?:@[\w.^~\-]+)?", core)
        if scoped and not self._is_name(scoped.group(1)):
            return "tech"  # an npm package specifier: "@vitejs/plugin-react"
        if any(c.isdigit() for c in core):
            return self._classify_digits(core)
        hyphenated = re.fullmatch(r"[^\W\d_]+(?:[\-'\u2019][^\W\d_]+)+", core) is not None
        if hyphenated and any(_is_camel(p) and not _name_shaped(p) for p in core.split("-")):
            return "tech"  # "Set-MgUserLicense", "pushTAN-Version"
        if not hyphenated and (_SPLIT.search(core.strip("-")) or core.startswith("-")):
            return self._classify_identifier(core)
        letters = [c for c in core if c.isalpha()]
        if not letters:
            return "punct"
        if not all(_is_cased_script(c) for c in letters):
            return self._classify_uncased(core)
        if _is_camel(core) and not _name_shaped(core):
            return "tech"
        if core.isupper() and len(letters) >= 2 and not caps_text:
            parts = [p for p in re.split(r"[\-'\u2019]", core) if p]
            if any(self._is_name(p) for p in parts):
                return "cname" if len(letters) <= 5 and not hyphenated else "name"
            if hyphenated and not all(self._word_known(p) for p in parts if len(p) > 2):
                return "name"
            if len(letters) <= 5 or self._word_known(core):
                return "acro"
            return "cname"  # "ERESOLVE", "EACCES": an error code, unless beside a name
        title = core[0].isupper()
        if title or caps_text:
            return self._classify_title(pieces, i, core)
        return self._classify_lower(core)

    def _classify_title(self, pieces: list[_Piece], i: int, core: str) -> str:
        folded = core.casefold()
        parts = [p for p in re.split(r"[\-'\u2019]", folded) if p]
        if _next_is_version(pieces, i):
            return "tech"  # "Hugo 0.125", "Nextcloud 28": a product and its version
        if re.match(r"[^\W\d_][\-][A-Z]", core) and self._word_known(core[2:]):
            return "word"  # "Q-Park", "X-Ray", "e-Tax"
        if any(self._is_name(p) for p in parts):
            prev = _neighbour(pieces, i, -1)
            after_product = (
                prev is not None and prev.kind == "tech" and _joined(pieces, prev, pieces[i])
            )
            common = folded in self._vocab.common
            in_phrase = not _sentence_start(pieces, i) and (
                self._plain_title(_neighbour(pieces, i, -1), pieces[i])
                or self._plain_title(_neighbour(pieces, i, 1), pieces[i])
            )
            before_product = (
                i + 1 < len(pieces)
                and pieces[i + 1].start == pieces[i].end + 1
                and _capitalised(pieces[i + 1].core)
                and _next_is_version(pieces, i + 1)
            )
            if folded in self._vocab.function or (
                common and (pieces[i].quoted or after_product or in_phrase or before_product)
            ):
                # "'Internal Server Error'", "Ubuntu Server", "Mercado Pago", "Little Snitch
                # 5.7": kept unless beside a name
                return "lname"
            return "name"
        if all(p in self._vocab.common or p in self._vocab.technical for p in parts):
            return "word"
        return "name"  # an unknown capitalised word: likely a name, never sent

    def _plain_title(self, other: _Piece | None, piece: _Piece) -> bool:
        """True when ``other`` is a capitalised common word, in no name list, next to ``piece``."""
        if other is None or not _capitalised(other.core) or not _joined_pieces(other, piece):
            return False
        folded = other.core.casefold()
        return folded in self._vocab.common and not self._is_name(folded)

    def _classify_lower(self, core: str) -> str:
        folded = core.casefold()
        parts = [p for p in re.split(r"[\-'\u2019]", folded) if p]
        if folded in self._vocab.very_common:
            return "word"
        known = [p in self._vocab.common or p in self._vocab.rare for p in parts]
        names = [self._is_name(p) and p not in self._vocab.very_common for p in parts]
        if all(known) and not all(names):
            return "word"
        if all(known) and len(parts) == 1 and folded in self._vocab.common:
            return "lname"  # a common word that is also a name: kept unless beside one
        return "name" if any(names) else "drop"

    def _classify_uncased(self, core: str) -> str:
        folded = core.casefold()
        if self._is_name(folded):
            return "name"
        if folded in self._vocab.common:
            return "word"
        if _is_hangul(core):
            for ending in _HANGUL_ENDINGS:
                stem = folded.removesuffix(ending)
                if stem != folded and len(stem) >= 2:
                    if self._is_name(stem) or self._is_name(stem[1:]):
                        return "name"
                    if stem in self._vocab.common:
                        return "word"
            if len(core) >= 2 and self._is_name(core[0]) and self._is_name(core[1:3]):
                return "name"
        return "drop"

    def _classify_cjk(self, core: str) -> str:
        """A run of Chinese or Japanese characters: kept only if the vocabulary covers it.

        Greedy longest match; any name or uncovered character drops the whole run (the
        run is usually one phrase; a name inside it is not split out safely).
        """
        if any(cue in core for cue in _CJK_NAME_CUES):
            return "name"  # "…と申します", "我叫…": a name is introduced here
        pos, longest = 0, self._vocab.longest_cjk
        while pos < len(core):
            for size in range(min(longest, len(core) - pos), 0, -1):
                chunk = core[pos : pos + size]
                if size >= 2 and chunk in self._vocab.names:
                    return "name"
                if chunk in self._vocab.common:
                    pos += size
                    break
            else:
                return "drop"
        return "word"

    def _classify_digits(self, core: str) -> str:
        if re.search(r"\d{6,}", core) and not re.fullmatch(
            r"(?:0x[0-9a-f]+|kb\d+|[0-9a-f]{8,}|[\d.]+|.*\.\w+)", core, re.I
        ):
            return "drop"  # an id-like run of digits inside a code ("T22000129")
        parts = [p for p in _SPLIT.split(core) if p and not any(c.isdigit() for c in p)]
        for part in parts:
            for word in re.findall(r"[^\W\d_]{4,}", part):
                unknown_name = self._is_name(word) and word.casefold() not in self._vocab.common
                if unknown_name and (not word[0].isupper() or word[1:].islower()):
                    return "drop"  # "jlfb_1979", "DreLyle77"
        return "tech"

    def _classify_identifier(self, core: str) -> str:
        parts = [p for p in _SPLIT.split(core) if p]
        if not parts:
            return "punct"
        last = parts[-1].casefold()
        words = [w for p in parts for w in re.findall(r"[^\W\d_]{3,}", p)]
        if core.isupper() and "_" in core:
            return "tech"  # SEC_ERROR_UNKNOWN_ISSUER
        dotted = [p.casefold() for p in core.split(".")]
        if (
            len(dotted) >= 2
            and all(p.isalpha() for p in dotted)
            and any(len(p) == 1 for p in dotted)
            and not any(p in self._vocab.technical or p in _EXTENSIONS for p in dotted)
        ):
            return "drop"  # "a.b.kowalczyk", "m.rossi": a login made of initials and a name
        unknown = [
            w
            for w in words
            if not (
                w.casefold() in self._vocab.common
                or w.casefold() in self._vocab.rare
                or w.casefold() in self._vocab.technical
                or self._known(w.casefold())
                or _is_camel(w)
                or w.isupper()
                or w.casefold() in _EXTENSIONS
            )
        ]
        names = [w for w in words if self._is_name(w)]
        if unknown and not (last in _EXTENSIONS and len(unknown) == 1 and len(parts) == 2):
            return "drop"
        if words and len(names) == len(words):
            return "drop"  # "a.b.kowalczyk", "fatima.zahra": a login made of names
        return "tech"

    # --- context ------------------------------------------------------------------

    def _apply_cues(self, text: str, pieces: list[_Piece]) -> None:
        """Drop the values that follow a personal cue (ids, names, addresses)."""
        for i, piece in enumerate(pieces):
            word = piece.core.casefold()
            raw = piece.raw.casefold()
            prev = pieces[i - 1].core.casefold() if i else ""
            nxt = pieces[i + 1].core.casefold() if i + 1 < len(pieces) else ""
            id_cue = word in _ID_CUES or any(c in piece.core for c in _ID_CUES_OTHER)
            if id_cue and not (word == "id" and prev in _ID_QUALIFIERS):
                self._drop_codes_after(pieces, i)
            if (
                word in _NAME_CUES
                or raw in _NAME_CUES
                or _ends_phrase(pieces, i, _NAME_CUE_PHRASES)
            ):
                self._drop_names_after(pieces, i)
            elif word in _WEAK_NAME_CUES:
                self._drop_lower_names_after(pieces, i)
            address_word = word in _ADDRESS_WORDS and (
                prev in _POSSESSIVES or piece.raw.endswith(":") or nxt in ("is", "es", "est", "ist")
            )
            if (
                address_word
                or word in _ADDRESS_CUES
                or any(c in piece.core for c in _ADDRESS_CUES_OTHER)
            ):
                _drop_clause(text, pieces, i + 1)
            street = (word in _STREET_WORDS or raw in _STREET_WORDS) and piece.core[:1].isupper()
            if (street or _street_suffix(word)) and _number_near(pieces, i):
                start = i
                while (
                    start > 0
                    and start > i - 4
                    and (
                        _capitalised(pieces[start - 1].core)
                        or re.fullmatch(r"\d{1,5}[A-Za-z]?", pieces[start - 1].core) is not None
                    )
                ):
                    start -= 1
                _drop_clause(text, pieces, start)

    def _drop_codes_after(self, pieces: list[_Piece], i: int) -> None:
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
                if (
                    piece.raw.strip() in ("-", "\u2014", "\u2013", ":")
                    and pieces.index(piece) > i + 1
                ):
                    break
                continue
            code_like = (
                any(c.isdigit() for c in core)
                or (core.isupper() and len(core) <= 5)
                or len(core) == 1
                or (
                    not core[0].isupper()
                    and folded not in self._vocab.common
                    and folded not in self._vocab.rare
                    and folded not in self._vocab.technical
                    and not _CJK.fullmatch(core)
                    and not all(
                        p in self._vocab.common for p in re.split(r"[\-'\u2019]", folded) if p
                    )
                )
            )
            if not code_like:
                break
            piece.kind, piece.forced = "drop", True
            if piece.raw.endswith((",", ";", ".", ")", ":")) and not piece.raw.endswith("..."):
                break

    def _drop_lower_names_after(self, pieces: list[_Piece], i: int) -> None:
        """After "for", "from", "hi": drop the lower-case names that follow ("for jan kowal")."""
        for piece in pieces[i + 1 : i + 5]:
            core = piece.core
            folded = core.casefold()
            if folded in _PARTICLES:
                continue
            parts = [p for p in re.split(r"[\-'\u2019]", folded) if p]
            lower_name = (
                core.islower()
                and core.replace("-", "").replace("'", "").isalpha()
                and all(self._is_name(p) for p in parts)
                and folded not in self._vocab.very_common
            )
            if not lower_name:
                break
            piece.kind, piece.forced = "name", True
            if piece.raw.endswith((",", ";", ".", ")", ":", "!", "?")):
                break

    def _drop_names_after(self, pieces: list[_Piece], i: int) -> None:
        if pieces[i].raw.endswith((".", "!", "?")) and pieces[i].core.casefold() not in _NAME_CUES:
            return
        taken = 0
        for piece in pieces[i + 1 : i + 6]:
            core = piece.core
            if not core:
                if taken:
                    break
                continue
            folded = core.casefold()
            if folded in _PARTICLES and taken:
                piece.kind, piece.forced = "drop", True
                continue
            plain_lower = (
                core.islower() and folded in self._vocab.very_common and not self._is_name(core)
            )
            if plain_lower or folded in self._vocab.technical or _is_camel(core):
                break
            if any(c.isdigit() for c in core) or re.search(r"[:/@_=]", core):
                break
            parts = [p for p in re.split(r"[\-'\u2019.]", folded) if p]
            if len(parts) > 1 and all(
                p in self._vocab.common and not self._is_name(p) for p in parts
            ):
                break  # "fleet-server": common words, not a name
            if not (
                core[0].isupper()
                or self._is_name(core)
                or folded not in self._vocab.common
                or (taken and folded not in self._vocab.very_common)
            ):
                break
            if folded in self._vocab.function and not core.isupper():
                break
            piece.kind, piece.forced = "name", True
            taken += 1
            if piece.raw.endswith((",", ";", ".", ")", ":", "!", "?")):
                break

    def _spread_names(self, pieces: list[_Piece], caps_text: bool) -> None:
        """A capitalised word (or a lower-case name) beside a dropped name goes with it."""
        changed = True
        while changed:
            changed = False
            for i, piece in enumerate(pieces):
                if piece.kind not in ("word", "lname", "cname", "acro") or piece.forced:
                    continue
                near = [_neighbour(pieces, i, -1), _neighbour(pieces, i, 1)]
                namely = (
                    ("name", "cname", "lname") if piece.kind in ("cname", "lname") else ("name",)
                )
                uncased = not any(_is_cased_script(c) for c in piece.core if c.isalpha())
                beside_name = any(
                    n is not None
                    and n.kind in namely
                    and _joined(pieces, piece, n)
                    and (not uncased or not any(_is_cased_script(c) for c in n.core if c.isalpha()))
                    for n in near
                )
                if not beside_name:
                    continue
                core = piece.core
                spreads = piece.kind != "word" or core[:1].isupper() or caps_text or uncased
                if spreads and core.casefold() not in self._vocab.technical:
                    piece.kind = "name"
                    changed = True
        for piece in pieces:
            if piece.kind in ("lname", "cname", "acro"):
                piece.kind = "word" if piece.kind == "lname" else "tech"


def _pieces(text: str) -> list[_Piece]:
    pieces = []
    for match in _PIECE.finditer(text):
        raw = match.group()
        core = _strip(raw)
        pieces.append(_Piece(match.start(), match.end(), raw, core))
    return pieces


def _strip(raw: str) -> str:
    core = raw.strip(_EDGE)
    core = re.sub(r"['\u2019]s$", "", core)
    if raw.startswith("--") or (raw.startswith("-") and len(raw) > 1 and raw[1].isalpha()):
        core = raw.rstrip(_EDGE)
    if raw.startswith(("#", "%", "@", "/", "$")):
        core = raw.rstrip(_EDGE.replace("!", "")) if raw.startswith("#") else raw.rstrip(_EDGE)
    return core


def _forced_spans(text: str, deny_terms: Iterable[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for pattern in (_EMAIL, _IPV4, _IPV6, _IBAN, _DATE, _WORD_DATE, _LETTERS_THEN_NUMBER):
        for m in pattern.finditer(text):
            if pattern is _EMAIL and re.match(r"git@", m.group(), re.I):
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
        if any(_is_version(chunk) for chunk in value.split()):
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


_IP_WORDS = _words(
    "ip ipv4 host server address gateway router ping dns proxy node vm client peer from to"
)


def _after_product(text: str, start: int) -> bool:
    """True when a capitalised product word (not an IP cue) stands right before ``start``."""
    m = re.search(r"(?:^|\s)([A-Z][A-Za-z]+|v|version)\s$", text[:start])
    return m is not None and m.group(1).casefold() not in _IP_WORDS


def _is_version(chunk: str) -> bool:
    """A dotted number with a group of at most two digits after the first ("10.0.22621.0")."""
    groups = chunk.split(".")
    return (
        len(groups) >= 2
        and all(g.isdigit() for g in groups)
        and any(len(g) <= 2 for g in groups[1:])
    )


def _drop_clause(text: str, pieces: list[_Piece], start: int) -> None:
    """Drop pieces from ``start`` to the end of the clause (at most 14 pieces)."""
    if start >= len(pieces):
        return
    end_at = len(text)
    m = _CLAUSE_END.search(text, pieces[start].start)
    if m:
        end_at = m.start() + (1 if m.group().startswith(".") else 0)
    for piece in pieces[start : start + 14]:
        if piece.start >= end_at:
            break
        piece.kind, piece.forced = "drop", True


def _ends_phrase(pieces: list[_Piece], i: int, phrases: Sequence[str]) -> bool:
    for phrase in phrases:
        words = phrase.split()
        if i + 1 < len(words):
            continue
        seen = [p.raw.casefold().rstrip(",:") for p in pieces[i + 1 - len(words) : i + 1]]
        if seen == words:
            return True
    return False


def _mostly_caps(pieces: list[_Piece]) -> bool:
    words = [p.core for p in pieces if sum(c.isalpha() for c in p.core) >= 2]
    cased = [w for w in words if all(_is_cased_script(c) for c in w if c.isalpha())]
    if len(cased) < 4:
        return False
    return sum(1 for w in cased if w.isupper()) / len(cased) > 0.6


def _is_cased_script(char: str) -> bool:
    return char.lower() != char.upper() or unicodedata.category(char) in ("Lu", "Ll", "Lt")


def _is_hangul(word: str) -> bool:
    return any("\uac00" <= c <= "\ud7a3" for c in word)


def _is_camel(word: str) -> bool:
    """An inner capital after a lower-case letter, or caps then lower ("OOMKilled", "iPhone")."""
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", word)) and word.isalpha()


def _name_shaped(word: str) -> bool:
    return any(
        re.fullmatch(r"(?:Mc|Mac|O|D|De)['\u2019]?[A-Z][a-z]+", part)
        for part in re.split(r"-", word)
    )


def _capitalised(core: str) -> bool:
    return bool(core) and core[0].isupper()


def _street_suffix(word: str) -> bool:
    return len(word) > 6 and word.endswith(("straße", "strasse", "straat", "gracht", "laan", "weg"))


def _number_near(pieces: list[_Piece], i: int) -> bool:
    window = pieces[max(0, i - 3) : i + 5]
    return any(re.fullmatch(r"\d{1,5}[a-zA-Z]?", p.core.split(":")[-1]) for p in window)


def _next_is_version(pieces: list[_Piece], i: int) -> bool:
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


def _sentence_start(pieces: list[_Piece], i: int) -> bool:
    prev = _neighbour(pieces, i, -1)
    return prev is None or prev.raw.endswith((".", "!", "?", ":", "\u2014"))


def _neighbour(pieces: list[_Piece], i: int, step: int) -> _Piece | None:
    j = i + step
    while 0 <= j < len(pieces):
        if pieces[j].core and pieces[j].core.casefold() not in _PARTICLES:
            return pieces[j]
        if pieces[j].core and pieces[j].kind in ("tech",):
            return pieces[j]
        j += step
    return None


def _neighbour_kept(pieces: list[_Piece], i: int, step: int) -> bool:
    j = i + step
    while 0 <= j < len(pieces):
        if pieces[j].kind != "punct":
            return pieces[j].keep
        j += step
    return False


def _joined_pieces(a: _Piece, b: _Piece) -> bool:
    """True when ``a`` and ``b`` are separated by one space and no punctuation."""
    first, second = (a, b) if a.start < b.start else (b, a)
    return (
        second.start == first.end + 1
        and first.raw == first.core
        and second.raw == second.core
        and first.quoted == second.quoted
    )


def _joined(pieces: list[_Piece], a: _Piece, b: _Piece) -> bool:
    """True when nothing but spaces, particles or one comma lies between ``a`` and ``b``."""
    first, second = (a, b) if a.start < b.start else (b, a)
    if first.quoted != second.quoted or second.raw[:1] in "'\"(\u201c\u2018\u300c[":
        return False  # a quotation or a bracket starts a new phrase
    return not re.search(r"[;.!?()\u2014\u2013:'\"]", first.raw[-1:]) and all(
        p.core.casefold() in _PARTICLES
        for p in pieces
        if first.end <= p.start and p.end <= second.start
    )
