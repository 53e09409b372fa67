"""Measures a redactor on labelled questions: recall per PII type, false redactions.

Pure: no file or network I/O; give it any :class:`~pipeline.deps.Redactor` and questions
from :func:`redaction.pii_corpus.load_questions`. What counts is ``Redaction.search_text``,
the exact string the web-search provider receives.

A PII value is *caught* when no fragment of it survives in ``search_text``:

* ``PERSON``: each name token of 3+ letters in a script with case (Latin, Cyrillic, Greek,
  Armenian...), as a whole word, case-insensitively ("Müller, Hans" → ``müller``, ``hans``);
  in a script without case (Chinese, Japanese, Korean, Thai, Arabic, Hebrew, Indic...), each
  run of 2+ letters anywhere, since those scripts join words or attach particles and
  prefixes to them ("李娜" inside "联系人李娜的", "김민수" inside "김민수입니다");
* ``STREET_ADDRESS``: the same, plus every token holding a digit ("221B", "5");
* ``EMAIL_ADDRESS``: the whole address and its local part, case-insensitively, and the
  local part's name tokens and digit runs as for the types below ("lina1990" → ``lina``,
  ``1990``); ``IP_ADDRESS``: the whole address;
* ``PHONE_NUMBER``, ``CREDIT_CARD``, ``IBAN_CODE``, ``NATIONAL_ID``, ``ACCOUNT_ID``,
  ``PASSPORT``, ``DATE_OF_BIRTH``: compared on letters and digits only, upper-cased ("+44 20
  7946 0958" → ``442079460958``): the whole value, every 6-character stretch of it, and
  every run of 3+ digits ("7946", "0958", a year of birth), so a number half left behind
  counts as a miss; an ``ACCOUNT_ID``'s words of 4+ letters not in capitals count too, as
  names do (the ``nakamura`` of "k-nakamura", not the ``EMP`` of "EMP-48213");
* ``LICENSE_PLATE``: the same with 4-character stretches (a plate is short: "AB12" of
  "AB12 CDE" identifies half of it).

Until 2026-12-04 only names of 3+ letters (a Chinese name of two characters never counted,
nor a name inside a run of unspaced script) and the whole value of an account id, passport,
plate or date of birth were checked; the figures measured before then are lower bounds.

A fragment *survives* when it occurs more often in ``search_text`` than in the question with
all its labelled values cut out, so a word that the question also uses elsewhere ("PESEL"
beside a PESEL number) is not taken for a leak.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.deps import Redactor
from redaction.pii_corpus import PII_TYPES, PiiValue, Question

_NUMBER_TYPES = frozenset(
    {
        "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "NATIONAL_ID", "ACCOUNT_ID", "PASSPORT",
        "DATE_OF_BIRTH", "LICENSE_PLATE",
    }
)  # fmt: skip
_WINDOW = 6
_LETTERS = re.compile(r"[^\W\d_]+")
_ALNUM_TOKEN = re.compile(r"[^\W_]+")
_DIGIT_RUN = re.compile(r"\d{3,}")
_UNSPACED = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff"
_SEARCH_WORD = re.compile(rf"[{_UNSPACED}]|[^\W_{_UNSPACED}]+")
_NOT_ALNUM = re.compile(r"[\W_]+")
_PLACEHOLDERS = re.compile(r"(?:<[A-Z][A-Z_]*>)+")
_SPELLED_AT = re.compile(r"@|\s*[\[(]at[\])]\s*|\s+at\s+", re.I)
_SPELLED_DOT = frozenset({"dot", "punto", "punkt", "point", "ponto"})


@dataclass(frozen=True)
class Miss:
    """A labelled value that (partly) reached the provider.

    Attributes:
        text: The question.
        item: The value that leaked.
        search_text: What the provider received.
        survived: The fragments found there (see the module docstring).
    """

    text: str
    item: PiiValue
    search_text: str
    survived: tuple[str, ...]


@dataclass(frozen=True)
class TypeRecall:
    """Recall of one PII type: ``caught`` of ``total`` labelled values."""

    type: str
    caught: int
    total: int

    @property
    def recall(self) -> float:
        """``caught / total`` in [0, 1]; 1.0 when the corpus has no value of this type."""
        return self.caught / self.total if self.total else 1.0


@dataclass(frozen=True)
class RecallReport:
    """Recall per type (in :data:`~redaction.pii_corpus.PII_TYPES` order) and every miss."""

    by_type: tuple[TypeRecall, ...]
    misses: tuple[Miss, ...]


@dataclass(frozen=True)
class FalseRedaction:
    """An ordinary question in which the redactor removed something.

    Attributes:
        text: The question.
        entities: Entity types the redactor reported, in text order.
        removed: The original text of each redacted span, in text order.
    """

    text: str
    entities: tuple[str, ...]
    removed: tuple[str, ...]


@dataclass(frozen=True)
class NoiseReport:
    """False redactions on questions that carry no personal data."""

    total: int
    flagged: tuple[FalseRedaction, ...]

    @property
    def rate(self) -> float:
        """Share of questions with at least one redaction, in [0, 1]."""
        return len(self.flagged) / self.total if self.total else 0.0


def measure_recall(redactor: Redactor, questions: Iterable[Question]) -> RecallReport:
    """Redact each question and check which labelled values reached ``search_text``.

    Args:
        redactor: The redactor under test (called once per question, no deny terms).
        questions: Labelled questions; those without ``pii`` only cost a call.

    Returns:
        Recall for every type in :data:`~redaction.pii_corpus.PII_TYPES` and the misses.
    """
    caught = dict.fromkeys(PII_TYPES, 0)
    total = dict.fromkeys(PII_TYPES, 0)
    misses = []
    for question in questions:
        search_text = redactor.redact(question.text).search_text
        baseline = _cut_out(question.text, [item.value for item in question.pii])
        for item in question.pii:
            total[item.type] += 1
            survived = surviving_fragments(item, search_text, baseline)
            if survived:
                misses.append(Miss(question.text, item, search_text, survived))
            else:
                caught[item.type] += 1
    by_type = tuple(TypeRecall(t, caught[t], total[t]) for t in PII_TYPES)
    return RecallReport(by_type, tuple(misses))


def measure_false_redactions(redactor: Redactor, questions: Sequence[Question]) -> NoiseReport:
    """Redact questions that carry no personal data and collect every redaction.

    Args:
        redactor: The redactor under test (called once per question, no deny terms).
        questions: Ordinary questions (their ``pii`` is ignored).

    Returns:
        How many questions were checked and those in which anything was redacted.
    """
    flagged = []
    for question in questions:
        redaction = redactor.redact(question.text)
        if redaction.entities:
            removed = redacted_spans(question.text, redaction.text)
            flagged.append(FalseRedaction(question.text, tuple(redaction.entities), removed))
    return NoiseReport(len(questions), tuple(flagged))


@dataclass(frozen=True)
class TermReport:
    """Technical terms still in what the provider receives: ``kept`` of ``total``.

    Attributes:
        kept: Labelled terms found verbatim in the search text.
        total: Labelled terms.
        lost: ``(question, term, search text)`` for each term that a search would miss
            (not :func:`searchable`).
        searchable: Labelled terms a search engine still finds: their words, as it splits
            them, in order and next to each other (see :func:`searchable`). At least ``kept``.
    """

    kept: int
    total: int
    lost: tuple[tuple[str, str, str], ...]
    searchable: int = 0

    @property
    def share(self) -> float:
        """``kept / total`` in [0, 1]; 1.0 when no term is labelled."""
        return self.kept / self.total if self.total else 1.0

    @property
    def searchable_share(self) -> float:
        """``searchable / total`` in [0, 1]; 1.0 when no term is labelled."""
        return self.searchable / self.total if self.total else 1.0


def search_words(text: str) -> list[str]:
    """The words a search engine indexes ``text`` by: runs of letters and digits, case-folded.

    ``"Rats! WebGL hit a snag."`` → ``["rats", "webgl", "hit", "a", "snag"]``;
    ``"security.enterprise_roots.enabled"`` → ``["security", "enterprise", "roots",
    "enabled"]``. Chinese, Japanese and Thai, written without spaces, count character by
    character (as a search engine's n-gram analysis reads them): ``"VBA マクロ"`` is found
    in ``"VBA マクロがブロック"``.
    """
    return _SEARCH_WORD.findall(text.casefold())


def searchable(term: str, search_text: str) -> bool:
    """True when every word of ``term`` is in ``search_text``, in order and adjacent.

    The count of what a query still finds, as opposed to a verbatim match: a dropped "!" or
    quote does not lose "Rats! WebGL hit a snag.", but a dropped "a" or "1.30" cut to "1"
    does. A term with no word (pure punctuation) must appear verbatim.
    """
    words = search_words(term)
    if not words:
        return term in search_text
    sent = search_words(search_text)
    n = len(words)
    return any(sent[i : i + n] == words for i in range(len(sent) - n + 1))


def measure_terms(redactor: Redactor, questions: Iterable[Question]) -> TermReport:
    """Count the labelled technical terms that survive into ``search_text``.

    Two counts: verbatim (the term appears whole, a lower bound) and :func:`searchable`
    (its words in order, as a search engine reads the query). A version cut short or a
    package name split by a placeholder is lost in both.
    """
    kept = found = total = 0
    lost = []
    for question in questions:
        search_text = redactor.redact(question.text).search_text
        for term in question.terms:
            total += 1
            kept += term in search_text
            if searchable(term, search_text):
                found += 1
            else:
                lost.append((question.text, term, search_text))
    return TermReport(kept, total, tuple(lost), searchable=found)


def surviving_fragments(item: PiiValue, search_text: str, baseline: str) -> tuple[str, ...]:
    """Fragments of ``item`` found more often in ``search_text`` than in ``baseline``.

    Args:
        item: A labelled value.
        search_text: What the provider received.
        baseline: The question with its labelled values cut out.

    Returns:
        The surviving fragments, normalised as described in the module docstring; empty
        when the value was caught.
    """
    survived = []
    for kind, fragment in _fragments(item):
        if _count(kind, fragment, search_text) > _count(kind, fragment, baseline):
            survived.append(fragment)
    return tuple(dict.fromkeys(survived))


def redacted_spans(original: str, redacted: str) -> tuple[str, ...]:
    """Recover the original text of each ``<ENTITY>`` placeholder in ``redacted``.

    Adjacent placeholders come back as one span. Where the text between two placeholders
    also occurs inside the first span, the earliest consistent split is taken.

    Args:
        original: The text given to the redactor.
        redacted: ``Redaction.text`` for it.

    Returns:
        The replaced spans in text order; ``()`` if ``redacted`` has no placeholder or does
        not align with ``original``.
    """
    pieces = _PLACEHOLDERS.split(redacted)
    if len(pieces) == 1:
        return ()
    pattern = "(.+?)".join(re.escape(piece) for piece in pieces)
    match = re.fullmatch(pattern, original, flags=re.DOTALL)
    return match.groups() if match else ()


def _fragments(item: PiiValue) -> list[tuple[str, str]]:
    value = item.value
    if item.type == "PERSON":
        return _name_fragments(value)
    if item.type == "STREET_ADDRESS":
        digits = [t for t in _ALNUM_TOKEN.findall(value) if any(c.isdigit() for c in t)]
        return _name_fragments(value) + [("word", t.casefold()) for t in digits]
    if item.type == "EMAIL_ADDRESS":
        local = _SPELLED_AT.split(value, maxsplit=1)[0]  # "jane dot roe at example dot com"
        whole = [("substring", value.casefold())]
        if len(local) >= 3:
            whole.append(("substring", local.casefold()))
        words = [
            ("word", w.casefold())
            for w in _LETTERS.findall(local)
            if len(w) >= 3 and w.casefold() not in _SPELLED_DOT
        ]
        return whole + words + [("digits", r) for r in sorted(set(_DIGIT_RUN.findall(local)))]
    if item.type in _NUMBER_TYPES:
        window = 4 if item.type == "LICENSE_PLATE" else _WINDOW
        fragments = _number_fragments(value, window)
        if item.type == "ACCOUNT_ID":
            logins = [w for w in _LETTERS.findall(value) if len(w) >= 4 and not w.isupper()]
            fragments += [("word", w.casefold()) for w in logins]
        return fragments
    return [("substring", value.casefold())]  # IP_ADDRESS


def _name_fragments(value: str) -> list[tuple[str, str]]:
    """A name's words: cased-script words of 3+ letters whole, uncased runs of 2+ anywhere."""
    fragments = []
    for run in _LETTERS.findall(value):
        for cased, part in _script_runs(run):
            if cased and len(part) >= 3:
                fragments.append(("word", part.casefold()))
            elif not cased and len(part) >= 2:
                fragments.append(("substring", part.casefold()))
    return fragments


def _script_runs(word: str) -> list[tuple[bool, str]]:
    """``word`` cut where it turns from a cased script to an uncased one or back."""
    runs: list[tuple[bool, str]] = []
    for char in word:
        cased = char.lower() != char.upper()
        if runs and runs[-1][0] == cased:
            runs[-1] = (cased, runs[-1][1] + char)
        else:
            runs.append((cased, char))
    return runs


def _number_fragments(value: str, window: int) -> list[tuple[str, str]]:
    """The whole value, its ``window``-character stretches and its 3+ digit runs."""
    flat = _alnum(value)
    stretches = {flat[i : i + window] for i in range(max(1, len(flat) - window + 1))}
    runs = set(_DIGIT_RUN.findall(value))
    return (
        [("alnum", flat)]
        + [("alnum", s) for s in sorted(stretches)]
        + [("digits", r) for r in sorted(runs)]
    )


def _count(kind: str, fragment: str, text: str) -> int:
    match kind:
        case "word":
            return len(re.findall(rf"(?<![^\W_]){re.escape(fragment)}(?![^\W_])", text.casefold()))
        case "substring":
            return text.casefold().count(fragment)
        case "alnum":
            return _alnum(text).count(fragment)
        case "digits":
            return len(re.findall(rf"(?<!\d){fragment}(?!\d)", text))
    raise ValueError(f"unknown fragment kind {kind!r}")


def _alnum(text: str) -> str:
    return _NOT_ALNUM.sub("", text).upper()


def _cut_out(text: str, values: Sequence[str]) -> str:
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, " ")
    return text
