"""Vouching: a value an answer gives must be stated by a source the tenant trusts enough.

Conflict checks (:mod:`pipeline.conflicts`, :mod:`pipeline.corroboration`) catch a planted
value only when another source states the fact differently. A plant that nothing in the
index contradicts, a fact the value reader cannot parse ("8MB per session by default"),
or a procedure step ("run ``kill -9`` on the postmaster") passes them. A tenant that ranks
its sources (:class:`~pipeline.conflicts.SourceTrust`) may therefore also name the lowest
rank that may vouch for a value alone (``vouch_trust``): every *fact* a claim gives that
the question did not (a number with its unit, a date, a version, a command, flag, code span
or dotted/underscored identifier) must be stated by a source of the turn ranked at least
that high. A fact only lower-ranked sources state is not shipped: the turn abstains with
``uncorroborated``, naming the fact and the sources that state it.

This is the two-source rule of editorial fact-checking, with the tenant's trusted corpus as
the second source, and the seeds' "supported by the other context" applied to every value
of the answer rather than only to the facts the code can read as a setting's value. It costs
no model call and no prompt tokens. What it costs is answers: a fact only the lower-ranked
pages state is withheld even when it is true, so it is a tenant's choice (off by default).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.conflicts import SourceTrust, asked_aspect, quantities, word_values
from pipeline.documents import Document
from pipeline.passages import ANYWHERE, About, passages, unwarned
from pipeline.values import Claim, Turn

_TERM = re.compile(
    r"`([^`\n]{1,80})`"  # a code span
    r"|(?<![\w\\-])(--?[A-Za-z][\w-]*)"  # a flag: -f, --globals-only
    r"|(?<!\w)(\\[A-Za-z]+)"  # a backslash command: \x
    r"|(?<![\w.])([A-Za-z][\w]*(?:[_.][A-Za-z0-9]\w*)+)"  # gc.auto, pg_resetwal
)


_VERSION = re.compile(r"v\d+(?:\.\d+)+", re.IGNORECASE)
_SWITCHES = frozenset({"on", "off"})
"""Word values too common to be vouched for by appearing anywhere: only as a value."""


def _plain(text: str) -> str:
    """``text`` with Markdown escapes undone and a dash before a letter read as ``--``."""
    return re.sub(r"[\u2013\u2014](?=[A-Za-z])", "--", re.sub(r"\\([_*`])", r"\1", text))


@dataclass(frozen=True)
class Unvouched:
    """A fact of a claim that no source ranked at or above the vouching level states.

    Attributes:
        fact: The fact as the claim writes it (``"256MB"``, ``"kill -9"``).
        claim: The claim's text.
        sources: ``(locator, trust level)`` of the turn's sources that do state it.
        level: The tenant's vouching level.
    """

    fact: str
    claim: str
    sources: tuple[tuple[str, int], ...]
    level: int

    def describe(self) -> str:
        """One sentence for the outcome's detail."""
        stated = ", ".join(f"{loc} (trust {lvl})" for loc, lvl in self.sources)
        by = f"is stated only by {stated}" if stated else "is stated by none of the sources"
        return (
            f"{self.fact!r} in the claim {self.claim!r} {by}; "
            f"no source ranked {self.level} or above states it"
        )


def facts(text: str) -> dict[str, str]:
    """The checkable facts of ``text``: normalised form -> as written.

    Terms first (code spans and identifiers with a dot or an underscore, compared without
    case; flags and backslash commands, with case: ``-D`` is not ``-d``), then quantities
    (:func:`pipeline.conflicts.quantities`: ``"134217728 bytes"`` for "128MB", ISO dates,
    three-part versions).
    """
    text = _plain(text)
    found: dict[str, str] = {}
    for m in _TERM.finditer(text):
        if m.group(2) or m.group(3):  # -D is not -d
            found.setdefault(f"flag:{m.group(2) or m.group(3)}", m.group(0))
        elif m.group(1) or (len(m.group(4)) >= 4 and not _VERSION.fullmatch(m.group(4))):
            term = (m.group(1) or m.group(4)).removeprefix("$ ")
            found.setdefault(_term_key(term), term)
    return found | {k: v for k, v in quantities(text).items() if k not in found}


def unvouched(
    question: str,
    claims: Sequence[Claim],
    sources: Mapping[str, Document],
    trust: SourceTrust,
    level: int,
) -> Unvouched | None:
    """The first fact of ``claims`` that no source ranked ``level`` or above states.

    A trusted source vouches for a fact anywhere in it, unless a lower-ranked source of the
    turn states the fact too: then only a passage about what the claim is about vouches
    (:class:`pipeline.passages.About`), so the manual's "64" of another setting does not
    carry a wiki's planted "64", while on a tenant whose sources all rank alike the rule
    withholds nothing the sources state. A command or flag is never vouched for by a
    sentence that warns against it.

    Args:
        question: The turn's (standalone) question; a fact it gives needs no voucher.
        claims: The answer's claims.
        sources: The turn's sources by id (kept, graded and cross-checked chunks).
        trust: The tenant's source ranking.
        level: The lowest trust level that may vouch for a fact alone.

    Returns:
        ``None`` when every fact is vouched for (or the claims state none).
    """
    asked = facts(question)
    aspect = asked_aspect(question)
    ranked = [(_Read(doc, aspect), trust.level(doc)) for doc in sources.values()]
    for claim in claims:
        given = facts(claim["text"])
        if aspect is not None:  # "It is minimal.": the asked value, written as a word
            given |= {f"word:{w}": v for w, v in word_values(claim["text"], aspect).items()}
        for key, written in given.items():
            if key in asked:
                continue
            stating = [(r, rank) for r, rank in ranked if r.states(key, ANYWHERE)]
            if any(rank < level for _, rank in stating):  # a rival: only context vouches
                about = About.of(question, claim["text"], written, is_name=key.startswith("term:"))
                if any(r.states(key, about) for r, rank in stating if rank >= level):
                    continue
            elif stating:  # every source that states it ranks high enough
                continue
            located = tuple((r.locator, rank) for r, rank in stating)
            return Unvouched(written, claim["text"], located, level)
    return None


def recallable(turn: Turn, trust: SourceTrust, level: int | None) -> bool:
    """Whether an earlier answer of the thread may be given again under the vouching rule.

    Its facts were verified against the sources it cites, so it may when every one of them
    ranks at least ``level`` (always when the rule is off, ``level`` ``None``). An answer
    given before the tenant set the rule, or one that cites a lower-ranked source, is not
    recalled: the question is answered anew, and vouched for.
    """
    if level is None:
        return True
    return all(trust.rank(c["locator"], c["source_type"]) >= level for c in turn["citations"])


class _Read:
    """A source read once, passage by passage (:func:`pipeline.passages.passages`)."""

    def __init__(self, doc: Document, aspect: str | None) -> None:
        self.locator = doc["locator"]
        self.passages = [_Passage(p, aspect) for p in passages(_plain(doc["text"]))]

    def states(self, key: str, about: About) -> bool:
        """True when a passage of the source about ``about`` states the fact ``key``."""
        return any(p.states(key) and about.is_subject_of(p.text) for p in self.passages)


class _Passage:
    """One passage read for the facts it states."""

    def __init__(self, text: str, aspect: str | None) -> None:
        self.text = text
        self.quantities = quantities(text).keys()
        self.words = word_values(text, aspect).keys() if aspect else frozenset()
        self.commands = unwarned(text)
        self.folded = _term_key(self.commands)[5:]

    def states(self, key: str) -> bool:
        """True when the passage states the fact ``key``.

        A quantity among its quantities; a term or flag whole, outside a sentence that
        warns against it; a value written as a word as a value of the asked aspect (an
        enum word also anywhere, whole).
        """
        kind, _, term = key.partition(":")
        if kind == "word":
            enum = term not in _SWITCHES
            return term in self.words or (enum and self._whole(term, self.folded))
        if kind not in ("term", "flag"):
            return key in self.quantities
        return self._whole(term, self.folded if kind == "term" else self.commands)

    @staticmethod
    def _whole(term: str, text: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text) is not None


def _term_key(text: str) -> str:
    """A term compared without case, code marks or repeated spaces."""
    return "term:" + re.sub(r"\s+", " ", text.replace("`", "")).strip().lower()
