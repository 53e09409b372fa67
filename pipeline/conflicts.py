"""Kept sources that disagree on the fact the answer needs: found in code, before generation.

The grounding checks promise that every claim is in its source; a planted "correction" *is*
in its source. The seeds' second line of defence is that such a claim is rarely "supported
by the other context". This module checks that in code for the facts it can read: a value
stated for the setting the question names (its default, maximum, minimum, port, the version
it appeared in), as written in each kept source. Two sources whose values for the same
aspect have nothing in common are a :class:`Conflict`.

What a value is: a number with its unit, converted so that "1GB", "1024MB" and "1 gigabyte"
agree (sizes to bytes, durations to milliseconds), or a switch ("on", "off"). Which setting
a sentence is about: the one it names, or else the term line above it in its chunk (the
manual's "shared_buffers (integer)" header, kept on every chunk by
:func:`corpus.chunking.continued_terms`). A table row that names the setting counts when the
table's header says "default".

Resolution (:func:`resolve`): when the sources on one side all rank above every source on
the other (:class:`SourceTrust`, e.g. the tenant's manual above its wiki and the web), the
trusted side wins and the others are left out of generation; otherwise the turn abstains
with ``conflicting_sources`` (or, where the tenant allows it, answers with both values and
both citations: :func:`both_sides_answer`).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.documents import Document
from pipeline.lexical import identifiers
from pipeline.state import Claim

_ASPECTS: tuple[tuple[str, str], ...] = (
    ("default", r"\bdefault(?:s|ed)?\b|\bout of the box\b|\bunless (?:set|changed)\b"),
    (
        "maximum",
        r"\bmaximum\b|\bat most\b|\bupper limit\b|\bcannot exceed\b|\blimit(?:ed)? (?:is|to|of)\b",
    ),
    ("minimum", r"\bminimum\b|\bat least\b|\blower limit\b"),
    ("port", r"\bport\b|\blistens on\b"),
    ("version", r"\b(?:introduced|added|new|available|removed|deprecated) (?:in|since)\b"),
)
_UNITS: dict[str, tuple[str, float]] = {
    "b": ("bytes", 1), "byte": ("bytes", 1), "bytes": ("bytes", 1),
    "kb": ("bytes", 1024), "kib": ("bytes", 1024), "kilobyte": ("bytes", 1024),
    "kilobytes": ("bytes", 1024),
    "mb": ("bytes", 1024**2), "mib": ("bytes", 1024**2), "megabyte": ("bytes", 1024**2),
    "megabytes": ("bytes", 1024**2),
    "gb": ("bytes", 1024**3), "gib": ("bytes", 1024**3), "gigabyte": ("bytes", 1024**3),
    "gigabytes": ("bytes", 1024**3),
    "tb": ("bytes", 1024**4), "tib": ("bytes", 1024**4), "terabyte": ("bytes", 1024**4),
    "terabytes": ("bytes", 1024**4),
    "us": ("ms", 0.001), "ms": ("ms", 1), "millisecond": ("ms", 1), "milliseconds": ("ms", 1),
    "s": ("ms", 1000), "sec": ("ms", 1000), "second": ("ms", 1000), "seconds": ("ms", 1000),
    "min": ("ms", 60_000), "minute": ("ms", 60_000), "minutes": ("ms", 60_000),
    "h": ("ms", 3_600_000), "hour": ("ms", 3_600_000), "hours": ("ms", 3_600_000),
    "d": ("ms", 86_400_000), "day": ("ms", 86_400_000), "days": ("ms", 86_400_000),
    "%": ("percent", 1), "percent": ("percent", 1),
}  # fmt: skip
_VALUE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*("
    + "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True))
    + r")?(?![\w.]*\d)(?![a-z])"
    r"|(?:\b(?:is|to|of|=)\s*['\"`]?)(on|off|true|false|enabled|disabled)\b",
    re.IGNORECASE,
)
_SWITCHES = {"on": "on", "true": "on", "enabled": "on", "off": "off", "false": "off", "disabled": "off"}  # fmt: skip  # noqa: E501
_TERM_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(?:\([a-z ]+\)|[:\u2014-])?\s*$")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?](?!\d)|$)|[^\n]+", re.MULTILINE)


@dataclass(frozen=True)
class Statement:
    """One source's value for an aspect of a setting.

    Attributes:
        source_id: The :class:`~pipeline.documents.Document` id.
        subject: The setting, lower-cased (``"shared_buffers"``).
        aspect: ``"default"``, ``"maximum"``, ``"minimum"``, ``"port"`` or ``"version"``.
        value: The normalised value (``"134217728 bytes"``, ``"on"``, ``"5432"``).
        sentence: The sentence (or table row) that states it, as written.
        written: The value as the source writes it (``"128MB"``, ``"128 megabytes"``).
    """

    source_id: str
    subject: str
    aspect: str
    value: str
    sentence: str
    written: str = ""


@dataclass(frozen=True)
class SourceTrust:
    """How far a tenant trusts each source: higher wins a conflict.

    Attributes:
        rules: ``(pattern, level)`` pairs, first match wins; a pattern is a shell glob on
            the source's locator (``"*/manual/*"``, ``"https://wiki.example.com/*"``).
        index_default: Level of an index chunk no rule matches.
        web_default: Level of a web result no rule matches (below the tenant's own index).
    """

    rules: tuple[tuple[str, int], ...] = ()
    index_default: int = 1
    web_default: int = 0

    def level(self, doc: Document) -> int:
        """The trust level of ``doc``."""
        for pattern, level in self.rules:
            if fnmatch.fnmatchcase(doc["locator"], pattern):
                return level
        return self.index_default if doc["source_type"] == "index" else self.web_default

    @classmethod
    def parse(cls, rules: Iterable[str]) -> SourceTrust:
        """Rules written as ``"PATTERN=LEVEL"`` (``"*/manual/*=3"``).

        Raises:
            ValueError: A rule without ``=`` or with a level that is not an integer.
        """
        parsed = []
        for rule in rules:
            pattern, sep, level = rule.rpartition("=")
            if not sep or not pattern or not re.fullmatch(r"-?\d+", level.strip()):
                raise ValueError(
                    f"source trust rule {rule!r} must be PATTERN=LEVEL, e.g. '*/manual/*=3'"
                )
            parsed.append((pattern.strip(), int(level)))
        return cls(tuple(parsed))


@dataclass(frozen=True)
class Side:
    """The sources that give one value."""

    value: str
    statements: tuple[Statement, ...]

    @property
    def source_ids(self) -> list[str]:
        """The ids of the sources on this side, in first-seen order."""
        return list(dict.fromkeys(s.source_id for s in self.statements))


@dataclass(frozen=True)
class Conflict:
    """Kept sources that give different values for one aspect of one setting."""

    subject: str
    aspect: str
    sides: tuple[Side, ...]

    def describe(self, by_id: dict[str, Document]) -> str:
        """One sentence naming the values and their sources, for the outcome's detail."""
        parts = [
            f"{side.statements[0].written or side.value} "
            f"({', '.join(by_id[i]['locator'] for i in side.source_ids)})"
            for side in self.sides
        ]
        return f"the sources disagree on the {self.aspect} of {self.subject}: " + " vs ".join(parts)


def statements(doc: Document, subjects: Sequence[str]) -> list[Statement]:
    """The values ``doc`` states for an aspect of one of ``subjects`` (lower-cased names)."""
    found: list[Statement] = []
    current: str | None = None
    default_table = False
    for line in doc["text"].splitlines():
        term = _TERM_LINE.match(line)
        if term and term.group(1).lower() in subjects:
            current = term.group(1).lower()
            continue
        if term and "_" in term.group(1):
            current = None  # another setting's entry starts
            continue
        if "|" in line:
            if re.search(r"\bdefault\b", line, re.IGNORECASE) and not _VALUE.search(line):
                default_table = True
            named = [s for s in subjects if s in line.lower()]
            if named and default_table:
                cells = [c for c in line.split("|") if c.strip()]
                for value, written in _values(" ".join(cells[1:])):
                    found.append(
                        Statement(doc["id"], named[0], "default", value, line.strip(), written)
                    )
            continue
        for sentence in _SENTENCE.findall(line):
            named = [s for s in subjects if s in sentence.lower()] or ([current] if current else [])
            if not named:
                continue
            for aspect, pattern in _ASPECTS:
                cue = re.search(pattern, sentence, re.IGNORECASE)
                if cue is None:
                    continue
                values = _values(sentence[cue.start() :], aspect) or _values(sentence, aspect)
                for value, written in values:
                    found.append(
                        Statement(doc["id"], named[0], aspect, value, sentence.strip(), written)
                    )
                break
    return found


def find_conflict(question: str, docs: Sequence[Document]) -> Conflict | None:
    """The first aspect of a setting the question names on which ``docs`` disagree.

    Two sources disagree when the values each gives for the aspect have none in common (a
    source may give several: "128MB, or 32MB if the kernel limits it"). ``None`` when the
    question names no setting or the sources agree.
    """
    subjects = sorted(s for s in identifiers(question) if "_" in s or "." in s)
    if not subjects and re.search(r"\bport\b", question, re.IGNORECASE):
        subjects = ["port"]  # "What port does the server listen on?": the port itself
    if not subjects:
        return None
    by_key: dict[tuple[str, str], dict[str, set[str]]] = {}
    said: dict[tuple[str, str, str], list[Statement]] = {}
    for doc in docs:
        for st in statements(doc, subjects):
            by_key.setdefault((st.subject, st.aspect), {}).setdefault(st.source_id, set()).add(
                st.value
            )
            said.setdefault((st.subject, st.aspect, st.value), []).append(st)
    for (subject, aspect), per_source in by_key.items():
        sets = list(per_source.values())
        if any(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1 :]):
            values = sorted({v for vs in sets for v in vs})
            sides = tuple(Side(v, tuple(said[(subject, aspect, v)])) for v in values)
            return Conflict(subject, aspect, sides)
    return None


def resolve(conflict: Conflict, docs: Sequence[Document], trust: SourceTrust) -> Side | None:
    """The side every one of whose sources ranks above every source of the other sides.

    Returns:
        The winning side, or ``None`` when trust does not settle it (a tie, or trusted
        sources on more than one side).
    """
    by_id = {d["id"]: d for d in docs}
    lowest = [min(trust.level(by_id[i]) for i in side.source_ids) for side in conflict.sides]
    highest = [max(trust.level(by_id[i]) for i in side.source_ids) for side in conflict.sides]
    for n, side in enumerate(conflict.sides):
        others = [h for m, h in enumerate(highest) if m != n]
        if others and lowest[n] > max(others):
            return side
    return None


def losing_sources(conflict: Conflict, winner: Side) -> set[str]:
    """The ids of the sources that gave a value other than the winner's (and not it too)."""
    keep = set(winner.source_ids)
    return {i for side in conflict.sides if side is not winner for i in side.source_ids} - keep


def both_sides_answer(conflict: Conflict, sources: Sequence[Document]) -> list[Claim]:
    """Claims that state each side's value with its citation, from the sources' own words.

    Args:
        conflict: The unresolved conflict.
        sources: The sources as numbered for the answer (1-based in this order).

    Returns:
        Claims (``{"text", "source_ids"}``): one per side, the sentence of its first source.
    """
    ids = [d["id"] for d in sources]
    claims: list[Claim] = []
    for side in conflict.sides:
        first = next((s for s in side.statements if s.source_id in ids), None)
        if first is not None:
            claims.append({"text": first.sentence, "source_ids": [first.source_id]})
    return claims


def _values(text: str, aspect: str = "default") -> list[tuple[str, str]]:
    """``(normalised, written)`` values in ``text`` (the first sentence part after the cue)."""
    text = re.split(r"[;:]\s|\bbut\b|\bwhile\b|\bexcept\b", text, maxsplit=1)[0]
    out: dict[str, str] = {}
    for m in _VALUE.finditer(text):
        if m.group(3):
            out.setdefault(_SWITCHES[m.group(3).lower()], m.group(3))
            continue
        number, unit = m.group(1), (m.group(2) or "").lower()
        written = m.group(0).strip()
        if unit in _UNITS:
            kind, factor = _UNITS[unit]
            out.setdefault(f"{round(float(number) * factor)} {kind}", written)
        elif aspect in ("port", "version") or "." not in number:
            out.setdefault(number, written)
    return list(out.items())
