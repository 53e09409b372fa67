"""The word lists the minimiser trusts and distrusts (:class:`Vocabulary`).

Common words of the support languages (wordfreq), rarer English words, the given names and
surnames of every Faker locale, and the technical vocabulary shipped with the package
(:data:`TERMS_FILE`). Loaded once per process by :func:`load_vocabulary` (1.5-2.5 s, about
320 MB resident); nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from redaction.minimise.pieces import CJK

LANGUAGES: tuple[str, ...] = (
    "en", "es", "fr", "de", "pt", "it", "nl", "pl", "tr", "ru", "uk", "el", "sv",
    "ar", "hi", "ko", "ja", "zh",
)  # fmt: skip
"""wordfreq languages whose common words count as safe (those of the support languages)."""

PACKAGE_WORDS_FILE = Path(__file__).with_name("package_words.txt")
"""Words of Debian's package names ("gunicorn", "meson", "lzma"): trusted like technical terms."""
BRAND_WORDS_FILE = Path(__file__).with_name("brand_words.txt")
"""Words of software and hardware brands ("bitwarden", "synology"), and their titles of two
or more words ("= raspberry pi"): trusted like technical terms."""
TERMS_FILE = Path(__file__).parents[1] / "technical_terms.txt"
"""The shipped technical vocabulary (``redaction/technical_terms.txt``): words separated by
white space, ``#`` starts a comment line."""

_VERY_COMMON_ZIPF = 4.0
_RARE_EN_ZIPF = 1.5
_FUNCTION_ZIPF = 5.5


@dataclass(frozen=True)
class Vocabulary:
    """The word lists the minimiser trusts and distrusts, all case-folded.

    Attributes:
        common: Common words of :data:`LANGUAGES` (wordfreq, zipf >= 3), each mapped to the
            bit mask of the languages it is common in (bit ``i`` is ``LANGUAGES[i]``).
        very_common: Words at zipf >= 4 in some language: safe in lower case even when
            they are also names ("will", "may", "page").
        function: Words at zipf >= 5.5 ("my", "will", "can"): safe even capitalised; each
            mapped to the bit mask of the languages it is a function word of.
        rare: Rarer English words (zipf >= 1.5), trusted in lower case and inside
            identifiers only ("auth", "actuator").
        names: Given names and surnames of every Faker locale, and their hyphen parts.
        technical: The shipped technical vocabulary (``technical_terms.txt``) and the words
            of Debian's package names (``package_words.txt``), less the names.
        brand_words: The words of brand titles (``brand_words.txt``), less the names: a
            product's as often as a person's ("Kaspersky", "Joplin"), so kept only where no
            name evidence stands beside them (:mod:`~redaction.minimise.classify`).
        brands: Brand titles of two or more words, case-folded, words joined by one space
            ("raspberry pi"); not those made only of names ("calvin klein").
        longest_cjk: Length of the longest Chinese or Japanese entry in ``common``.
    """

    common: Mapping[str, int]
    very_common: frozenset[str]
    function: Mapping[str, int]
    rare: frozenset[str]
    names: frozenset[str]
    technical: frozenset[str]
    brand_words: frozenset[str] = frozenset()
    brands: frozenset[str] = frozenset()
    longest_cjk: int = 8
    languages: tuple[str, ...] = LANGUAGES

    def question_languages(self, words: Collection[str]) -> int:
        """The bit mask of the languages ``words`` (case-folded) are most likely written in.

        Counts, per language, the words that are among its function words (zipf >= 5.5:
        "the", "und", "не"); the languages with the highest count win, English always
        included (technical questions mix it in). No function word: every language.
        """
        counts = [0] * len(self.languages)
        for word in words:
            mask = self.function.get(word, 0)
            for bit in range(len(self.languages)):
                if mask >> bit & 1:
                    counts[bit] += 1
        best = max(counts, default=0)
        if best == 0:
            return (1 << len(self.languages)) - 1
        mask = sum(1 << bit for bit, count in enumerate(counts) if count == best)
        if "en" in self.languages:
            mask |= 1 << self.languages.index("en")
        return mask


@lru_cache(maxsize=1)
def load_vocabulary(languages: Sequence[str] = LANGUAGES) -> Vocabulary:
    """Load the word lists from the installed ``wordfreq`` and ``faker`` packages.

    Takes 1.5-2.5 s and about 320 MB resident; cached, so one process loads them once.

    Raises:
        ModuleNotFoundError: ``wordfreq`` or ``faker`` is not installed.
    """
    from wordfreq import get_frequency_dict

    common: dict[str, int] = {}
    very_common: set[str] = set()
    function: dict[str, int] = {}
    for bit, lang in enumerate(languages):
        for word, freq in get_frequency_dict(lang, "small").items():
            common[word] = common.get(word, 0) | 1 << bit
            if freq >= 10 ** (_VERY_COMMON_ZIPF - 9):
                very_common.add(word)
            if freq >= 10 ** (_FUNCTION_ZIPF - 9):
                function[word] = function.get(word, 0) | 1 << bit
    rare = {
        w for w, f in get_frequency_dict("en", "large").items() if f >= 10 ** (_RARE_EN_ZIPF - 9)
    }
    longest = max((len(w) for w in common if CJK.fullmatch(w)), default=1)
    names = _faker_names()
    brand_words = _brand_words(names)
    return Vocabulary(
        common=common,
        very_common=frozenset(very_common),
        function=function,
        rare=frozenset(rare),
        names=frozenset(names),
        technical=frozenset(_technical_terms() | _package_words(names)),
        brand_words=frozenset(brand_words),
        brands=_brand_titles(),
        longest_cjk=min(longest, 10),
        languages=tuple(languages),
    )


def is_name(vocab: Vocabulary, word: str) -> bool:
    """True when ``word`` is a given name or surname of the lists and not a technical term."""
    folded = word.casefold()
    return folded in vocab.names and folded not in vocab.technical


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


def _package_words(names: set[str]) -> set[str]:
    """The words of Debian's package names (``package_words.txt``), less any name of the lists.

    A name can never enter this way (only the curated ``technical_terms.txt`` overrides the
    name lists, for "Jenkins" or "Ruby"); the filter runs again here because the name lists
    come from the installed Faker, which may be newer than the file.
    """
    words = PACKAGE_WORDS_FILE.read_text(encoding="utf-8").split("\n")
    return {w for w in words if w and not w.startswith("#") and w not in names}


def _brand_words(names: set[str]) -> set[str]:
    """The brand words of ``brand_words.txt``, less any name of the lists (as above)."""
    lines = BRAND_WORDS_FILE.read_text(encoding="utf-8").split("\n")
    return {w for w in lines if w and not w.startswith(("#", "=")) and w not in names}


def _brand_titles() -> frozenset[str]:
    """The brand titles of two or more words of ``brand_words.txt`` (its ``= `` lines)."""
    lines = BRAND_WORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line[2:] for line in lines if line.startswith("= "))


def _technical_terms() -> set[str]:
    terms: set[str] = set()
    for line in TERMS_FILE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            terms.update(word.casefold() for word in line.split())
    return terms
