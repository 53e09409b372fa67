"""Where a source states a fact, and what that part of the source is about.

Vouching (:mod:`pipeline.vouching`) asks whether a trusted source states a fact an answer
gives. Asked of the whole source, a manual vouches for a wiki's planted "64" because it
states "64" for another setting, and for a planted ``kill -9`` because it warns against
it. So a source is read as *passages*: a paragraph, a list item, or a table row with its
header row, each with the heading or term line above it. Where a lower-ranked source states
the fact too, a passage vouches for it only when it is about what the claim is about
(:class:`About`: a setting or command the question or the claim names, else enough of
their words); and a passage never vouches for a command or flag it warns against ("never
run ``kill -9``").

This is the two-source rule read as fact-checkers read it: the second source must state the
same *claim*, not the same token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.conflicts import names
from pipeline.lexical import (
    CAMEL_CASE,
    SENTENCE,
    SQL_COMMAND,
    TABLE_RULE,
    content_terms,
    identifiers,
)

_HEADING = re.compile(r"^\s*(?:#+\s+\S.*|[`*]*[A-Za-z_][\w.-]*[`*]*\s*(?:\([a-z ]+\))?:?)\s*$")
"""A Markdown heading, or a line that is only a name: ``shared_buffers (integer)``."""
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_CODE_SPAN = re.compile(r"`([^`\n]{2,60})`")
_WARNING = re.compile(
    r"\b(?:do not|don't|never|must not|should not|shouldn't|instead of|rather than|"
    r"not recommended|avoid)\b",
    re.IGNORECASE,
)
"""A sentence that warns against what it names: it vouches for no command or flag in it."""

GENERIC = frozenset(
    content_terms(
        "default defaults value values setting settings set maximum minimum max min limit "
        "number size version release current typical typically actual exact exactly used "
        "use using does what which configured configuration option parameter"
    )
)
"""Words every question about a setting has; sharing them says nothing about the subject."""
_WORDS_NEEDED = 2
"""Without a name to go by, a passage must share this many of the subject's words."""


def passages(text: str) -> list[str]:
    """``text`` cut into passages, each led by the heading or term line above it.

    A passage is a paragraph, a list item, or a table row (with the table's header row), so
    a value stands with the name it is a value of. A chunk that starts below its heading
    begins with its term line (a contextual chunk header), which leads it like a heading.

    Args:
        text: A source's text (Markdown or plain).

    Returns:
        The passages in order; headings alone are not passages.
    """
    lines = text.splitlines()
    heading = ""
    out: list[str] = []
    block: list[str] = []
    header_row: str | None = None

    def flush() -> None:
        if block:
            out.append("\n".join([heading, *block]))
            block.clear()

    for line in lines:
        stripped = line.strip()
        if not stripped:
            flush()
            header_row = None
        elif "|" in stripped:
            flush()
            if header_row is None:
                header_row = stripped
            elif not TABLE_RULE.match(stripped):
                out.append("\n".join([heading, header_row, stripped]))
        elif _HEADING.match(line):
            flush()
            heading = stripped
        else:
            if _ITEM.match(line):
                flush()
            block.append(stripped)
    flush()
    return out


def subject_names(text: str) -> set[str]:
    """The names of things ``text`` mentions, lower-cased: settings, commands, directives.

    Identifiers with an underscore or a dot and flags (:func:`pipeline.lexical.identifiers`),
    code spans, CamelCase directives (``LoginGraceTime``) and words in capitals (``VACUUM``).
    """
    found = identifiers(text)
    found |= {m.group(1).strip().lower() for m in _CODE_SPAN.finditer(text)}
    found |= {m.group(0).lower() for m in CAMEL_CASE.finditer(text)}
    found |= {m.group(0).lower() for m in SQL_COMMAND.finditer(text)}
    return found


@dataclass(frozen=True)
class About:
    """What a claim is about, for deciding whether a passage states the same claim.

    Attributes:
        names: Lower-cased names of settings and commands the question or claim mentions
            (:func:`subject_names`), the fact itself left out.
        words: Their content words (:func:`pipeline.lexical.content_terms`) of three letters
            or more, and their numbers, without :data:`GENERIC` words and the fact's own;
            used when there is no name.
    """

    names: frozenset[str]
    words: frozenset[str]

    @classmethod
    def of(cls, question: str, claim: str, fact: str, *, is_name: bool = False) -> About:
        """What ``claim`` (an answer to ``question``) says ``fact`` about.

        ``is_name``: the fact is itself a name (a command, a setting). Its subject is then
        what the question names (another name in the claim is a fact of its own, not its
        subject), or, when the question names nothing, the name itself.
        """
        folded = fact.replace("`", "").strip().lower()
        text = f"{question}\n{claim}"
        named = subject_names(question if is_name else text)
        named = {n for n in named if n not in folded and folded not in n}
        if not named and is_name:
            return cls(frozenset(), frozenset())  # a command named alone is its own subject
        words = content_terms(text) - GENERIC - content_terms(fact)
        kept = {w for w in words if len(w) >= 3 or w.isdigit()}  # "PostgreSQL 17" keeps 17
        return cls(frozenset(named), frozenset(kept))

    def is_subject_of(self, passage: str) -> bool:
        """Whether ``passage`` is about this subject.

        It names one of :attr:`names`; with no names, it shares two of :attr:`words` (all
        of them when there are fewer); with neither (a command the claim names alone, or a
        claim of no content words), every passage is.
        """
        if self.names:
            return any(names(name, passage) for name in self.names)
        if not self.words:
            return True
        needed = min(_WORDS_NEEDED, len(self.words))
        return len(self.words & content_terms(passage)) >= needed


def unwarned(passage: str) -> str:
    """``passage`` without the sentences that warn against what they name."""
    return " ".join(s for s in SENTENCE.findall(passage) if not _WARNING.search(s))


ANYWHERE = About(frozenset(), frozenset())
"""A subject every passage is about: a fact stated anywhere in the source counts."""
