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
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pipeline.documents import Document
from pipeline.lexical import CAMEL_CASE, SENTENCE, SQL_COMMAND, identifiers
from pipeline.values import Claim

_ASPECTS: tuple[tuple[str, str], ...] = (
    ("default", r"\bdefault(?:s|ed)?\b|\bout of the box\b|\bunless (?:set|changed)\b"),
    (
        "maximum",
        r"\bmaximum\b|\bat most\b|\bupper limit\b|\bcannot exceed\b|\blimit(?:ed)? (?:is|to|of)\b",
    ),
    ("minimum", r"\bminimum\b|\bat least\b|\blower limit\b"),
    ("port", r"\bport\b|\blistens on\b"),
    (
        "version",
        r"\b(?:introduced|added|new|available|removed|deprecated|appeared|arrived)"
        r"(?: (?:in|since|with)\b)?|\bsince (?:version|git|postgresql)\b",
    ),
    ("date", r"\breleased?\b|\brelease date\b|\bshipped on\b"),
)
_COLUMN_ASPECTS: tuple[tuple[str, str], ...] = (
    ("default", r"default(?: value)?"),
    ("maximum", r"max(?:imum)?|limit|upper limit"),
    ("minimum", r"min(?:imum)?"),
    ("port", r"(?:default )?port"),
    ("date", r"(?:initial |first |general )?(?:released?(?: on)?|release date|date|ga)"),
    (
        "version",
        r"(?:since|introduced(?: in)?|added(?: in)?|first version|git version"
        r"|postgresql version|(?:minimum |min\.? )?version)",
    ),
)
"""Table headers that name an aspect: a row naming the subject gives it in that column."""
_DEFAULT_COLUMN = re.compile(
    r"^(?!.*\b(?:our|we|recommended|suggested|current|production|prod)\b).*\bdefault\b", re.I
)
"""A header that speaks of the default in other words ("Built-in default", "ssh-keygen
default size (-b)"), not of the site's own choice ("Our default")."""
_HEADING = re.compile(r"^\s*#+\s*[`*]*([A-Za-z][\w. -]*?)[`*]*(?:\s*\(.*\))?\s*$")
_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        1,
    )
    for m in names
}  # fmt: skip
_DATE = re.compile(
    r"\b(\d{4})-(\d{2})-(\d{2})\b"
    r"|\b([A-Za-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b"
    r"|\b(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]{3,9})\.? (\d{4})\b"
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
    "msec": ("ms", 1), "msecs": ("ms", 1),
    "s": ("ms", 1000), "sec": ("ms", 1000), "second": ("ms", 1000), "seconds": ("ms", 1000),
    "secs": ("ms", 1000),
    "min": ("ms", 60_000), "minute": ("ms", 60_000), "minutes": ("ms", 60_000),
    "mins": ("ms", 60_000),
    "h": ("ms", 3_600_000), "hour": ("ms", 3_600_000), "hours": ("ms", 3_600_000),
    "hr": ("ms", 3_600_000), "hrs": ("ms", 3_600_000),
    "d": ("ms", 86_400_000), "day": ("ms", 86_400_000), "days": ("ms", 86_400_000),
    "week": ("ms", 604_800_000), "weeks": ("ms", 604_800_000),
    "%": ("percent", 1), "percent": ("percent", 1),
}  # fmt: skip
_VALUE = re.compile(
    r"(?<![\w.])(-?\d+(?:\.\d+)?)(?:([kmg])(?![\w.])|\s*("
    + "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True))
    + r")?(?![\w.]*\d)(?![a-z]))"
    r"|(?:\b(?:is|to|of|=)\s*['\"`]?)(on|off|true|false|enabled|disabled)\b",
    re.IGNORECASE,
)
"""A number with its unit, or a switch. A one-letter suffix right after the number, as
nginx, HAProxy and the JVM write sizes ("1m", "16k", "2g"), is kept as written: "m" is
megabytes in ``client_max_body_size 1m`` and minutes in ``ssl_session_timeout 5m``."""
_SWITCHES = {"on": "on", "true": "on", "enabled": "on", "off": "off", "false": "off", "disabled": "off"}  # fmt: skip  # noqa: E501
_TERM_LINE = re.compile(
    r"^\s*(?:#+\s*|[-*]\s+)?[`*]*([A-Za-z_][\w.]*(?:-[\w.]+)*)[`*]*\s*"
    r"(?:\([a-z ]+\)|[:\u2014-])?\s*$"
)
"""A line that is only a setting's name: the manual's "shared_buffers (integer)", a Markdown
heading "### autovacuum_max_workers (integer)", a list item "- `gc.auto`:", a hyphenated
key "### `max-concurrent-downloads`"."""
_SYNTAX_LINE = re.compile(r"^\s*[*_]*Syntax[*_]*\s*:[*_]*\s*[`*]*([A-Za-z_][\w.-]*)", re.I)
"""The first line of a directive's box ("Syntax: keepalive_timeout timeout;", as nginx and
Apache httpd document a directive): the entry of the directive it names starts."""
_LABEL_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?\|?\s*[*_]*(default(?: value)?|maximum(?: value)?|minimum(?: value)?)"
    r"[*_]*\s*(?::[*_]*|\|)\s*(.+?)\s*\|?\s*$",
    re.IGNORECASE,
)
"""A labelled line of a reference entry: a directive box's "Default: client_max_body_size
1m;", a definition list's "**Default:** 5", a two-column table's "| Default Value | 151 |".
The value belongs to the setting the line names first, or else to the entry it is in."""
_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "sixteen": "16", "twenty": "20", "thirty": "30", "sixty": "60", "hundred": "100",
}  # fmt: skip
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_PRODUCT = (
    r"(?:version|release|postgresql|postgres|pg|git|v"
    r"|(?-i:(?!(?:Default|Maximum|Minimum|Port|Limit|Value|Since|In|Of|To)\b)"
    r"[A-Z][A-Za-z]*[a-z][A-Za-z]*(?:\s(?:Engine|Server|HTTP\sServer))?))"
)
"""What names a release before its number: a version word, or a product's capitalised name
("Redis 7", "MySQL 8.0", "OpenSSH 9.8", "Docker Engine 25.0"), not an aspect's label
("Default 5"). A lower-case name ("nginx 1.25.1") counts only after "in", "since", "with" or
"from" (:func:`_values`)."""
_VERSION_BEFORE = re.compile(_PRODUCT + r"\s*$", re.I)


@dataclass(frozen=True)
class Statement:
    """One source's value for an aspect of a setting.

    Attributes:
        source_id: The :class:`~pipeline.documents.Document` id.
        subject: The setting, lower-cased (``"shared_buffers"``).
        aspect: ``"default"``, ``"maximum"``, ``"minimum"``, ``"port"``, ``"version"`` or
            ``"date"``.
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
        return self.rank(doc["locator"], doc["source_type"])

    def rank(self, locator: str, source_type: str) -> int:
        """The trust level of a source at ``locator`` (``source_type`` ``"index"`` or ``"web"``)."""
        for pattern, level in self.rules:
            if fnmatch.fnmatchcase(locator, pattern):
                return level
        return self.index_default if source_type == "index" else self.web_default

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


def names(subject: str, text: str) -> bool:
    """Whether ``text`` names ``subject`` (lower-cased) as a whole name.

    ``gc.auto`` is not named by ``gc.autoPackLimit``, nor ``port`` by ``ports`` or
    ``port_range``; a full stop after the name ends a sentence, not the name.
    """
    pattern = rf"(?<![\w.-]){re.escape(subject)}(?![\w-]|\.\w)"
    return re.search(pattern, text, re.IGNORECASE) is not None


def statements(doc: Document, subjects: Sequence[str], strict: bool = False) -> list[Statement]:
    """The values ``doc`` states for an aspect of one of ``subjects`` (lower-cased names).

    Args:
        doc: The source.
        subjects: What the question asks about (:func:`subjects_of`).
        strict: Read only what is plainly about the subject: under its own term line, or in
            a sentence that names it and no other setting, outside another setting's entry,
            with the value right after its cue (:func:`_strict_values`: "the default is 100",
            not "set it to -1 to revert to the default"), or right before it ("5432 by
            default"); a default may then be a word. :func:`find_conflict` reads this way:
            a sentence that names the subject in passing ("1/32nd of shared_buffers",
            under ``wal_buffers``) is usually about something else. Code blocks are
            not read (an ``ssh_config``'s ``Port 22`` is no server's default), but for
            their labelled lines (nginx's directive box, ``Default: keepalive_timeout 75s;``).
    """
    found: list[Statement] = []
    current: str | None = None
    elsewhere = False  # inside another setting's entry
    columns: dict[int, str] = {}  # table column -> the aspect its header names
    fenced = False
    for line in doc["text"].splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        syntax = _SYNTAX_LINE.match(line)
        if syntax:  # a directive's box starts its entry ("Syntax: http2 on | off;")
            name = syntax.group(1).lower()
            current, elsewhere = (name, False) if name in subjects else (None, True)
            continue
        label = _LABEL_LINE.match(line)  # read in a code block too: nginx's directive box
        if label:
            found.extend(_labelled(doc["id"], label, subjects, current, line))
            continue
        if fenced and strict:
            continue
        term = _TERM_LINE.match(line) or _HEADING.match(line)
        if term and term.group(1).lower() in subjects:
            current, elsewhere = term.group(1).lower(), False
            continue
        typed = re.search(r"\([a-z ]+\)\s*$", line) is not None  # "buffering (enum)"
        keyed = any(c in term.group(1) for c in "_.-") if term else False
        if term and (keyed or typed or line.lstrip().startswith("#")):
            current = None  # another setting's entry (or another section) starts
            elsewhere = typed or keyed
            continue
        if "|" in line:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            header = {
                n: aspect
                for n, cell in enumerate(cells)
                for aspect, pattern in _COLUMN_ASPECTS
                if re.fullmatch(pattern, cell.strip("`*"), re.IGNORECASE)
                or (aspect == "default" and _DEFAULT_COLUMN.search(cell))
            }
            if header and not any(_VALUE.search(c) or _DATE.search(c) for c in cells):
                columns = header
                continue
            named = _named(subjects, line)
            for n, aspect in columns.items():
                if named and n < len(cells) and named[0] not in cells[n].lower():
                    for value, written in _values(cells[n], aspect)[:1]:
                        found.append(
                            Statement(doc["id"], named[0], aspect, value, line.strip(), written)
                        )
            continue
        if not line.strip():
            columns = {}
        for sentence in SENTENCE.findall(line):
            lowered = sentence.lower()
            named = _named(subjects, lowered) or ([current] if current else [])
            if not named or (
                strict and current is None and _in_passing(sentence, named, elsewhere)
            ):
                continue
            for aspect, pattern in _ASPECTS:
                cue = re.search(pattern, sentence, re.IGNORECASE)
                if cue is None:
                    continue
                window = sentence[max(0, cue.start() - 40) : cue.start()]
                after = sentence[cue.start() :]
                if strict:
                    values = _strict_values(after, cue.end() - cue.start(), aspect)
                    values = values or _value_before(window, aspect)
                    if aspect in ("maximum", "minimum") and _ADVICE.search(sentence[: cue.start()]):
                        values = []
                    if not values:
                        continue  # strictly, another aspect's cue may still give it
                else:
                    values = (
                        _values(after, aspect)[:1]
                        or _values(re.split(r"[;:]\s", window)[-1], aspect)[-1:]
                        or _values(window, aspect)[-1:]
                    )  # "port 5432 by default", "the port it listens on; 5432 by default"
                for value, written in values:
                    found.append(
                        Statement(doc["id"], named[0], aspect, value, sentence.strip(), written)
                    )
                break
    return found


def _named(subjects: Sequence[str], text: str) -> list[str]:
    """The subjects ``text`` names, settings first.

    In "| `keepalive_timeout` | 65s | … idle keep-alive client connection |" the row is
    about ``keepalive_timeout``, not the question's other hyphenated word.
    """
    found = [s for s in subjects if names(s, text)]
    return sorted(found, key=lambda s: not ("_" in s or "." in s))


def _labelled(
    source_id: str, label: re.Match[str], subjects: Sequence[str], current: str | None, line: str
) -> list[Statement]:
    """The value of a labelled line (:data:`_LABEL_LINE`) for the setting it is about.

    "Default: client_max_body_size 1m;" is about the setting it names first; "Default
    Value: 151" about the entry it stands in (``current``). A default may be a word
    ("Default: noeviction").
    """
    aspect = label.group(1).split()[0].lower()
    rest = label.group(2).strip("`*; ")
    named = next((s for s in subjects if re.match(rf"[`*]*{re.escape(s)}\b", rest, re.I)), None)
    subject = named or current
    if subject is None:
        return []
    if named:
        rest = re.sub(rf"^[`*]*{re.escape(named)}[`*]*\s*", "", rest, flags=re.I)
    values = _values(rest, aspect)[:1]
    word = re.fullmatch(r"[`'\"]?([A-Za-z][\w-]*)[`'\"]?", rest)
    if not values and word and word.group(1).lower() in _SWITCHES:
        values = [(_SWITCHES[word.group(1).lower()], word.group(1))]  # "Default: http2 off;"
    elif not values and aspect == "default" and word and word.group(1).lower() not in _NOT_VALUES:
        values = [(f"'{word.group(1).lower()}'", word.group(1))]
    return [Statement(source_id, subject, aspect, v, line.strip(), w) for v, w in values]


_STRICT_REACH = 45
"""Strictly, a value must start within this many characters after its cue."""


def _strict_values(after: str, cue_length: int, aspect: str) -> list[tuple[str, str]]:
    """The value right after a cue, read strictly (see :func:`statements`).

    ``after`` starts at the cue. The value must follow it closely ("The default setting is
    two megabytes") in the same clause, not later in the sentence ("not computed by
    default, so this field will be zero unless …"), and not as what someone sets it to
    ("By default, pg_restore will set row_security to off"). A default may be a word (an enum,
    :func:`_word_value`).
    """
    near = after[: cue_length + _STRICT_REACH]
    near += re.match(r"[\w.-]*", after[len(near) :]).group(0)  # type: ignore[union-attr]
    near = re.split(r",\s*(?:so|but|unless|which|while|because|and)\b|;\s", near, maxsplit=1)[0]
    values = _values(near, aspect)[:1] or (_word_value(near) if aspect == "default" else [])
    if not values:
        return []
    words = re.findall(r"[a-z]+", near[cue_length : max(near.find(values[0][1]), 0)].lower())
    if re.match(r"default(?:s|ed)\b", near, re.IGNORECASE) and words[:1] == ["to"]:
        words = words[1:]  # "defaults to 50ms"
    return [] if _CHANGED.intersection(words) else values


_CHANGED = frozenset(
    {"set", "to", "from", "than", "unless", "or", "exceeds", "exceed", "above", "below", "up",
     "raise", "raised", "lower", "lowered", "increase", "increased", "decrease", "decreased",
     "double", "doubled", "halve", "halved", "changed", "change", "beyond", "over", "under"}
)  # fmt: skip
"""Words between a cue and a value that make it a change or a condition, not the value:
"from the default to 8GB", "at the default unless latency exceeds 50ms"."""
_ADVICE = re.compile(
    r"\b(?:keep|make|raise|lower|increase|decrease|recommend(?:ed)?|suggest(?:ed)?|try|we)\b",
    re.IGNORECASE,
)
"""Advice before a limit's cue ("make max_wal_senders at least 10"): a choice, not a limit."""


def _value_before(window: str, aspect: str) -> list[tuple[str, str]]:
    """A value right before its cue, read strictly: "5432 by default", "Git 2.23 introduced".

    At most one short word may stand between them ("is on by default"), and no "set …".
    """
    clause = re.split(r"[;:,(]\s*", window)[-1]
    values = _values(clause, aspect)[-1:]
    if not values or re.search(r"\bset\b", clause, re.IGNORECASE):
        return []
    between = clause[clause.rfind(values[0][1]) + len(values[0][1]) :]
    return values if re.fullmatch(r"\s*(?:by|is|are|as|was|were)?\s*", between) else []


def _in_passing(sentence: str, named: Sequence[str], elsewhere: bool) -> bool:
    """Whether a sentence names the subject only in passing (see ``strict``)."""
    others = {i for i in identifiers(sentence) if _is_setting(i) and i not in named}
    return elsewhere or bool(others)


_FILE_NAME = re.compile(r"\.(?:conf|cfg|ini|toml|ya?ml|json|md|html?|txt|sql|sh|py|log|d)$")


def _is_setting(name: str) -> bool:
    """Whether an identifier looks like a setting (``max_wal_size``), not a file name."""
    return ("_" in name or "." in name) and not _FILE_NAME.search(name)


_HYPHENATED = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_HYPHENATED_WORDS = frozenset(
    {"built-in", "read-only", "read-write", "well-known", "up-to-date", "so-called",
     "non-default", "open-source", "third-party", "e-mail", "long-running", "end-to-end",
     "out-of-the-box", "by-default", "x-ray", "co-located", "pre-built", "re-run",
     "per-user", "per-connection", "per-process", "per-thread", "in-memory", "on-disk",
     "self-signed", "time-out", "set-up", "log-in", "sign-in", "opt-in", "opt-out"}
)  # fmt: skip
"""Hyphenated English words, not settings."""


_NOT_SUBJECTS = frozenset(
    {"the", "this", "that", "which", "what", "a", "an", "its", "their", "config", "configuration",
     "server", "client", "global", "default", "same", "other", "new", "old", "standalone"}
)  # fmt: skip
"""Words before "directive", "setting" or "option" that name none ("the global option")."""


def subjects_of(question: str) -> list[str]:
    """What the question asks about, lower-cased: settings, commands, a release.

    Setting names (``shared_buffers``, ``gc.auto``, sshd's ``LoginGraceTime``, Redis's and
    Docker's hyphenated keys ``maxmemory-policy``, a name in backticks such as ``maxconn``),
    Git commands (``git switch``), SQL commands written in capitals (``MERGE``), a product
    and its version ("PostgreSQL 17", "nginx 1.0.0"), a word before "directive", "setting",
    "option", "parameter" or "variable" ("the standalone http2 directive"); ``["port"]`` for
    a port question that names none of these.
    """
    subjects = {s.strip("`*") for s in identifiers(question) if "_" in s or "." in s}
    subjects |= {m.lower() for m in CAMEL_CASE.findall(question)}
    subjects |= {m for m in _HYPHENATED.findall(question) if m not in _HYPHENATED_WORDS}
    subjects |= {m.lower() for m in re.findall(r"`([A-Za-z][\w.-]*)`", question)}
    subjects |= {m.lower() for m in re.findall(r"\bgit [a-z][a-z-]+", question, re.I)}
    subjects |= {m.lower() for m in SQL_COMMAND.findall(question)}
    subjects |= {
        m.lower() for m in re.findall(r"\b(?:PostgreSQL|Postgres|Git) \d+(?:\.\d+)?\b", question)
    }
    subjects |= {  # "nginx 1.0.0", "Redis 6.0": a release of any product
        m.lower() for m in re.findall(r"\b[A-Za-z][A-Za-z-]+ \d+\.\d+(?:\.\d+)?\b", question)
    }
    subjects |= {  # "the standalone http2 directive"
        m.group(1).lower()
        for m in re.finditer(
            r"\b([a-z][\w.-]*[a-z0-9])\s+(?:directive|setting|option|parameter|variable)\b",
            question,
        )
        if m.group(1).lower() not in _NOT_SUBJECTS
    }
    subjects -= {"git config", "git version"}
    if not subjects and re.search(r"\bport\b", question, re.IGNORECASE):
        subjects = {"port"}
    return sorted(subjects)


_OWNER = re.compile(r"\b([A-Za-z][\w-]*)\s+(?:server|daemon|service)\b", re.IGNORECASE)
OTHER_PROGRAMS = frozenset(
    {
        "ident",
        "identd",
        "ldap",
        "radius",
        "kerberos",
        "kdc",
        "dns",
        "bind",
        "ssh",
        "sshd",
        "ntp",
        "smtp",
        "mail",
        "imap",
        "pop3",
        "web",
        "http",
        "https",
        "nginx",
        "apache",
        "proxy",
        "syslog",
        "snmp",
        "ftp",
        "tftp",
        "dhcp",
        "redis",
        "memcached",
        "pgbouncer",
        "pgpool",
    }
)
"""Programs whose own port a page may state beside the one asked about ("an ident server
that listens on TCP port 113"): a port sentence about one of these is not about PostgreSQL
or Git, unless the question names it."""


def asked_statements(
    question: str, doc: Document, subjects: Sequence[str], strict: bool = False
) -> list[Statement]:
    """:func:`statements` of ``doc``, without those giving another program's port.

    A port question that names no setting has the generic subject ``port``; a sentence that
    gives the port of a server of :data:`OTHER_PROGRAMS` ("an ident server that listens on
    TCP port 113 by default", asked about the PostgreSQL server) states another program's
    port, not a rival value for the one asked about. Any other owner ("the staging server",
    "the Postgres daemon", "our database server") still counts.
    """
    found = statements(doc, subjects, strict)
    named = {w.lower() for w in re.findall(r"[\w-]+", question)}
    return [
        st
        for st in found
        if st.subject != "port"
        or not any(
            m.group(1).lower() in OTHER_PROGRAMS and m.group(1).lower() not in named
            for m in _OWNER.finditer(st.sentence)
        )
    ]


def find_conflict(question: str, docs: Sequence[Document]) -> Conflict | None:
    """The first aspect of a setting the question names on which ``docs`` disagree.

    Two sources disagree when the values each gives for the aspect have none in common (a
    source may give several, in different sentences). ``None`` when the
    question names no setting or the sources agree. Every source is read strictly
    (:func:`statements`): what names the setting in passing, or gives a value away from
    its cue, is not a rival value (asked for the default of each of the manual's 357
    settings, the loose reading found 7 false conflicts among the top 4 chunks, the strict
    one none; ``bench.false_conflicts``, README *Measured here*).
    """
    return next(iter(find_conflicts(question, docs)), None)


def find_conflicts(question: str, docs: Sequence[Document]) -> list[Conflict]:
    """Every aspect of a setting the question names on which ``docs`` disagree, in order.

    As :func:`find_conflict`; a port a server "listens on" counts as its default port.
    """
    subjects = subjects_of(question)
    if not subjects:
        return []
    by_key: dict[tuple[str, str], dict[str, set[str]]] = {}
    said: dict[tuple[str, str, str], list[Statement]] = {}
    for doc in docs:
        for st in asked_statements(question, doc, subjects, strict=True):
            aspect = fact_aspect(st.aspect)
            by_key.setdefault((st.subject, aspect), {}).setdefault(st.source_id, set()).add(
                st.value
            )
            said.setdefault((st.subject, aspect, st.value), []).append(st)
    conflicts = []
    for (subject, aspect), per_source in by_key.items():
        sets = list(per_source.values())
        if any(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1 :]):
            values = sorted({v for vs in sets for v in vs})
            sides = tuple(Side(v, tuple(said[(subject, aspect, v)])) for v in values)
            conflicts.append(Conflict(subject, aspect, sides))
    return conflicts


def fact_aspect(aspect: str) -> str:
    """The fact an aspect states: the port a server listens on is its default port."""
    return "default" if aspect == "port" else aspect


def column_aspect(header: str) -> str | None:
    """The aspect a table column's header names (``"Minimum"`` -> ``"minimum"``), or ``None``."""
    cell = header.strip().strip("`*").rstrip(".")  # "Min." is "Min"
    for aspect, pattern in _COLUMN_ASPECTS:
        if re.fullmatch(pattern, cell, re.IGNORECASE):
            return aspect
    return "default" if _DEFAULT_COLUMN.search(cell) else None


def cue_aspect(text: str) -> str | None:
    """The aspect of the last cue in ``text`` ("… the minimum is" -> ``"minimum"``), or ``None``."""
    cues = [
        (m.start(), aspect)
        for aspect, pattern in _ASPECTS
        for m in re.finditer(pattern, text, re.IGNORECASE)
    ]
    return max(cues)[1] if cues else None


def asked_aspect(question: str) -> str | None:
    """The aspect the question asks for (``"default"``, ``"maximum"``, …), or ``None``."""
    return next((a for a, p in _QUESTION_ASPECTS if re.search(p, question, re.IGNORECASE)), None)


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
    """``(normalised, written)`` values in ``text``, in order (examples left out).

    A statement takes the first value after its cue (or the last one right before it): in
    "The default is 128 megabytes (128MB), but might be less" that is 128 megabytes.
    """
    text = text.replace("\u2212", "-").replace("\u2013", "-")  # a minus sign is a minus
    text = re.split(r"[;:]\s|\bbut\b|\bwhile\b|\bexcept\b", text, maxsplit=1)[0]
    text = _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)
    text = re.sub(r"\b(?:e\.g\.|for example|such as)[^;)]*", "", text)  # examples, not the value
    out: dict[str, str] = {}
    if aspect == "date":
        for m in _DATE.finditer(text):
            iso = _iso_date(m)
            if iso:
                out.setdefault(iso, m.group(0))
        return list(out.items())
    if aspect == "version":
        for m in re.finditer(
            rf"(?:\b{_PRODUCT}\s*)(\d+(?:\.\d+)*)\b"
            r"|\b(?:in|since|with|from)\s+[a-z][\w-]*\s(\d+\.\d+(?:\.\d+)*)\b",  # "in nginx 1.25.1"
            text,
            re.I,
        ):
            if m.group(1) is None:
                out.setdefault(m.group(2), m.group(0).split(None, 1)[1])
                continue
            out.setdefault(m.group(1), m.group(0))
        return list(out.items())
    for m in _VALUE.finditer(text):
        if m.group(1) and _VERSION_BEFORE.search(text[: m.start()]) and aspect != "version":
            continue  # "since PostgreSQL 13 the default ...": a version, not the value
        if m.group(4):
            out.setdefault(_SWITCHES[m.group(4).lower()], m.group(4))
            continue
        if m.group(2):
            out.setdefault(f"{float(m.group(1)):g}{m.group(2).lower()}", m.group(0))
            continue
        number, unit = m.group(1), (m.group(3) or "").lower()
        key = number if aspect == "version" and unit not in _UNITS else _quantity(number, unit)
        if key is not None:
            out.setdefault(key, m.group(0).strip())
    return list(out.items())


_WORD_VALUE = re.compile(
    r"(?:\b(?:is|defaults? to|uses)\s+|=\s*)(?:now\s+)?"
    r"(?:([`'\"])([A-Za-z][\w-]*)\1|([a-z][a-z_]*)(?=[,.;)]|$)"
    r"|([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)\b)"  # "allkeys-lru": a code-like word, unquoted
)
_NOT_VALUES = frozenset(
    {"the", "a", "an", "not", "now", "set", "none", "used", "unset", "empty", "it", "that",
     "this", "there", "which", "what", "system", "server", "platform", "dependent"}
)  # fmt: skip


def uncited(text: str) -> str:
    """``text`` without its citation markers (``[1]``, ``[1, 2]``): a marker states nothing."""
    return re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "", text)


def values_in(text: str, aspect: str = "default") -> set[str]:
    """Every value ``text`` states for ``aspect``, normalised (``"134217728 bytes"``).

    Read sentence by sentence; citation markers (``[1]``) are not values.
    """
    plain = uncited(text)
    return {v for sentence in SENTENCE.findall(plain) for v, _ in _values(sentence, aspect)}


def quantities(text: str) -> dict[str, str]:
    """Every date, number, time and size or duration ``text`` gives, whatever it is the value of.

    Normalised as :func:`values_in` normalises (``"134217728 bytes"`` for "128MB",
    ``"2014-05-28"`` for "May 28th, 2014", ``"3"`` for "three" but not for "one",
    ``"1600"`` for "1,600"), mapped to the first way ``text`` writes each. Kept as written,
    since their parts are not numbers to compare: versions after a version word or a ``v``
    (``"version 2.10"`` for "Git 2.10" and "v2.10", so 2.10 is not 2.1), three-part
    versions, times and numeric dates (``"03:00"``, ``"05/28/2014"``), a month and year
    (``"2023-06"``), and a number fused with letters no unit list knows (``"30m"``,
    ``"10k"``). Citation markers (``[1]``, ``[1, 2]``) are not quantities.
    """
    plain = uncited(text).replace("\u2212", "-").replace("\u2013", "-")
    plain = re.sub(r"(?<=\d),(?=\d{3}\b)", "", plain)  # 1,600 is one number
    plain = _NUMBER_WORD.sub(  # "one" is mostly a pronoun ("this one")
        lambda m: m.group(0) if m.group(1).lower() == "one" else _NUMBER_WORDS[m.group(1).lower()],
        plain,
    )
    out: dict[str, str] = {}

    def date(m: re.Match[str]) -> str:
        iso = _iso_date(m)
        if iso is None:
            return m.group(0)
        out.setdefault(iso, m.group(0))
        return " "

    def month_year(m: re.Match[str]) -> str:
        number = _MONTHS.get(m.group(1).lower())
        return kept(f"{{1}}-{number:02d}")(m) if number else m.group(0)

    def kept(key: str) -> Callable[[re.Match[str]], str]:
        def keep(m: re.Match[str]) -> str:
            out.setdefault(key.format(*m.groups(), whole=m.group(0).lower()), m.group(0))
            return " "

        return keep

    plain = _DATE.sub(date, plain)
    plain = _MONTH_YEAR.sub(month_year, plain)
    plain = re.sub(r"(?<![\w.:/])\d+(?:[:/]\d+)+(?![\w:/])", kept("{whole}"), plain)
    plain = _VERSION_WRITTEN.sub(kept("version {0}"), plain)
    plain = re.sub(r"(?<![\w.])\d+(?:\.\d+){2,}(?![\w.]*\d)", kept("{whole}"), plain)
    for m in _VALUE.finditer(plain):
        if m.group(1) is None or m.group(2):
            continue  # a switch word ("on"): too common to check; "30m": fused, below
        number, unit = m.group(1), (m.group(3) or "").lower()
        key = _quantity(number, unit)
        if key is not None:
            out.setdefault(key, m.group(0).strip() if unit in _UNITS else number)
    for m in re.finditer(r"(?<![\w.])\d+(?:\.\d+)?([A-Za-z]+)\b", plain):
        if m.group(1).lower() not in _UNITS:
            out.setdefault(m.group(0).lower(), m.group(0))
    return out


_MONTH_YEAR = re.compile(r"\b([A-Za-z]{3,9})\.? (\d{4})\b")
_VERSION_WRITTEN = re.compile(
    r"\b(?:v|(?:version|release|postgresql|postgres|git|pg)\s?)(\d+\.\d+)(?![\w.]*\d)",
    re.IGNORECASE,
)


def _quantity(number: str, unit: str) -> str | None:
    """``number`` in ``unit``, normalised; ``None`` for a number too large for a float.

    In the unit's base (``"268435456 bytes"`` for 256 MB), or the bare number (``"4"`` for
    "4.0") when ``unit`` is none :data:`_UNITS` knows.
    """
    if unit not in _UNITS:
        return f"{float(number):g}"
    kind, factor = _UNITS[unit]
    value = float(number) * factor
    return f"{round(value)} {kind}" if math.isfinite(value) else None


def word_values(text: str, aspect: str) -> dict[str, str]:
    """The values ``text`` gives for ``aspect`` as words, lower-cased -> as written.

    Switches (``"off"`` in "fsync defaults to off") and enum words right after their cue
    (``"minimal"`` in "It is minimal.", :func:`_word_value`), sentence by sentence.
    """
    plain = uncited(text)
    out: dict[str, str] = {}
    for sentence in SENTENCE.findall(plain):
        for value, written in [*_values(sentence, aspect), *_word_value(sentence)]:
            word = value.strip("'")
            if word.isalpha():
                out.setdefault(word, written)
    return out


def _word_value(text: str) -> list[tuple[str, str]]:
    """A default written as a word (an enum) right after its cue, as ``[(value, written)]``.

    ``replica`` in "The default value is `replica`", ``minimal`` in "out of the box
    wal_level is minimal, which …". Quoted or code-formatted words count, and words joined
    by a hyphen or underscore ("defaults to allkeys-lru since …"); another bare word only
    when punctuation ends it, and never an adverb, a participle or a word of
    :data:`_NOT_VALUES` ("is computed.").
    """
    m = _WORD_VALUE.search(text)
    if m is None:
        return []
    word = m.group(2) or m.group(3) or m.group(4)
    bare = m.group(3) is not None
    if word.lower() in _NOT_VALUES or (bare and re.search(r"(?:ed|ly|ing)$", word)):
        return []
    return [(f"'{word.lower()}'", word)]


_QUESTION_ASPECTS: tuple[tuple[str, str], ...] = (
    (
        "maximum",
        r"\b(?:maximum|max(?:imum)? number|at most|upper limit|how (?:many|large|long) can)\b",
    ),
    ("minimum", r"\b(?:minimum|smallest|at least|lower limit)\b"),
    ("default", r"\bdefault(?:s|ed)?\b|\bout of the box\b"),
    ("port", r"\bport\b"),
    ("date", r"\bwhen (?:was|were|did)\b.*\breleased?\b|\brelease date\b"),
    ("version", r"\b(?:which|what) (?:\w+ )?version\b|\bintroduced\b|\bsince when\b"),
)


def claim_value_problem(
    question: str, claims: Sequence[Claim], docs: Sequence[Document]
) -> str | None:
    """A claim that gives the asked-for value differently from every kept source, or ``None``.

    When the question asks for an aspect of a setting ("the default of random_page_cost")
    and the kept sources state one, each claim's value for it must be one of theirs: a value
    that is in a source only as an example or as another setting's ("e.g., 1.1") is not the
    answer. Nothing to compare (no setting named, no aspect asked, no source stating it, a
    claim with no value): ``None``.
    """
    subjects = subjects_of(question)
    aspect = asked_aspect(question)
    if not subjects or aspect is None:
        return None
    stated = {
        st.value: st.written
        for doc in docs
        for st in asked_statements(question, doc, subjects)
        if st.aspect == aspect
    }
    if not stated:
        return None
    for claim in claims:
        values = {v for v, _ in _values(claim["text"], aspect)}
        if values and not values & stated.keys():
            shown = ", ".join(sorted(set(stated.values())))
            return (
                f"the claim {claim['text']!r} gives a {aspect} the sources do not state for "
                f"{subjects[0]} (they state {shown})"
            )
    return None


def _iso_date(m: re.Match[str]) -> str | None:
    """``YYYY-MM-DD`` of a :data:`_DATE` match, or ``None`` for a word that is no month."""
    if m.group(1):
        return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"
    month, day, year = (
        (m.group(4), m.group(5), m.group(6)) if m.group(4) else (m.group(8), m.group(7), m.group(9))
    )
    number = _MONTHS.get(month.lower())
    return f"{year}-{number:02d}-{int(day):02d}" if number else None
