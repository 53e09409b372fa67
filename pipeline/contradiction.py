"""The verifier's judgement where the code cannot read: does another page state a different value?

:mod:`pipeline.conflicts` compares values in code, and only the forms its reader knows (a
setting named, its aspect's cue, the value right after it). A planted value written in
other words (wiki prose, a callout, a table it cannot parse) is read by no rule, so the
answer built on it passes every check: the claim *is* in its source. Issue 12 asks for the
rest "in the verifier's judgement where you cannot", and the seeds' second line of defence
is a claim "supported by the other context".

So, once an answer has passed verification and before it ships, its answer claim (the
first that states a number, else the first) is searched for in the tenant's index, and
the passages of *other pages* that name what it names (its settings, or most of its
words) and give a quantity it does not are shown to the model with the question. The
model only *reads*: what does each passage answer? (a task a 1.5B model does far better
than judging whether two texts disagree: asked that, it said "no" to every plant of the
opened corpus whose true value it was shown). The *comparison* is made in code: the value
read must be written in its passage and share no quantity with the claim ("512 KB" is
not "512 MB"; "3" is "three"). A difference is a :class:`~pipeline.conflicts.Conflict`
like one read in code, settled the same way (source trust, the abstention
``conflicting_sources``, or both sides stated).

Claim-level checking against retrieved evidence follows fact-verification practice
(FEVER: Thorne et al. 2018; "refutes" as well as "supports") and the contradiction check
of SelfCheck-style verifiers (Manakul et al. 2023, *SelfCheckGPT*), here against the
tenant's other documents rather than the model's own samples. Cost: one index search on
every answer about to ship that states a value, and one model call (a few hundred prompt
tokens) only when another page gives a value the claim does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.conflicts import (
    Conflict,
    Side,
    SourceTrust,
    Statement,
    asked_aspect,
    column_aspect,
    cue_aspect,
    fact_aspect,
    names,
    quantities,
    subjects_of,
)
from pipeline.documents import Document
from pipeline.evidence import evidence_window
from pipeline.lexical import CAMEL_CASE, TABLE_RULE, content_terms, identifiers, numbers
from pipeline.sanitize import neutralise
from pipeline.schemas import PassageAnswers
from pipeline.values import Claim

MAX_PASSAGES = 2
"""Most passages of other pages shown beside the claim (prompt tokens are the cost)."""
PASSAGE_CHARS = 360
"""Most characters of each passage shown (~90 tokens)."""
MIN_SHARED_TERMS = 0.5
"""Least share of a claim's content words a passage must hold when the claim names no
setting, to count as being about the same thing."""


@dataclass(frozen=True)
class Challenge:
    """A claim about to ship and the passages of other pages that may contradict it.

    Attributes:
        claim: The claim's text.
        cited: The ids of the sources the claim cites.
        passages: The passages shown, numbered from 1 in this order: each chunk with its
            text cut to the part about the claim's fact.
        chunks: The same chunks whole, in the same order.
        aspect: The aspect the question asks for (``"default"``, …), or ``None``.
    """

    claim: str
    cited: tuple[str, ...]
    passages: tuple[Document, ...]
    chunks: tuple[Document, ...]
    aspect: str | None = None


def answer_claim(claims: Sequence[Claim]) -> Claim | None:
    """The claim that carries the answer's value: the first with a number, else the first."""
    return next((c for c in claims if numbers(c["text"])), claims[0] if claims else None)


def challenged_claim(question: str, claims: Sequence[Claim]) -> Claim | None:
    """The claim to check against other pages, or ``None`` when the answer gives no value.

    Only an answer to a question about a value counts: one whose answer claim
    (:func:`answer_claim`) states a number, or whose question asks for an aspect
    :mod:`pipeline.conflicts` knows (a default, a limit, a port, a version, a date).
    """
    claim = answer_claim(claims)
    if claim is None or not (numbers(claim["text"]) or asked_aspect(question)):
        return None
    return claim


def challenge(
    question: str,
    claim: Claim,
    by_id: dict[str, Document],
    found: Sequence[Document],
    trust: SourceTrust,
    skip: set[str],
) -> Challenge | None:
    """The passages of other pages on the claim's fact; ``None`` if none qualify.

    Args:
        question: The turn's standalone question.
        claim: The claim to check (:func:`challenged_claim`).
        by_id: The turn's sources by id (the claim's cited ones among them).
        found: What the search for the claim found, best first, callouts already cut
            out (:mod:`pipeline.screening`).
        trust: The tenant's source trust: passages of more trusted pages are shown first.
        skip: Chunk ids never shown (sources a more trusted one already contradicted).

    Returns:
        The claim and at most :data:`MAX_PASSAGES` passages of pages the claim does not
        cite, one per page, each naming what the claim names and giving a quantity the
        claim does not (any passage, for a claim with no quantity).
    """
    cited = [by_id[i] for i in claim["source_ids"] if i in by_id]
    if not cited:
        return None
    pages = {d["locator"] for d in cited}
    others = [d for d in found if d["locator"] not in pages and d["id"] not in skip]
    ranked = sorted(others, key=lambda d: -trust.level(d))  # stable: search order kept
    passages: list[Document] = []
    chunks: list[Document] = []
    for doc in ranked:
        passage = _passage(question, claim["text"], doc)
        if passage is not None and all(p["locator"] != doc["locator"] for p in passages):
            passages.append({**doc, "text": passage})
            chunks.append(doc)
        if len(passages) == MAX_PASSAGES:
            break
    if not passages:
        return None
    cited_ids = tuple(d["id"] for d in cited)
    aspect = asked_aspect(question)
    return Challenge(claim["text"], cited_ids, tuple(passages), tuple(chunks), aspect)


def _passage(question: str, claim: str, doc: Document) -> str | None:
    """The passage of ``doc`` about the claim's fact that gives another value, else ``None``.

    About the claim's fact: the chunk (with its title) names every product the question
    names (:func:`product_names`: "Redis Sentinel" is not Redis, "ProxyJump" is not
    ``Match``), and the passage names a setting the claim or question names, or, when they
    name none, holds :data:`MIN_SHARED_TERMS` of the claim's words.
    """
    whole = f"{doc['title']}\n{doc['text']}"
    if not all(names(name, whole) for name in product_names(question)):
        return None
    text = evidence_window(claim, neutralise(doc["text"])[0])[:PASSAGE_CHARS]
    named = identifiers(claim) | {s for s in subjects_of(question) if "_" in s or "." in s}
    if named:
        if not any(names(n, text) for n in named):
            return None
        label = _LABEL.match(text)
        if label and {label.group(1).lower()} - {n.lower() for n in named}:
            return None  # the entry of another setting, naming the claim's in passing
    else:
        terms = content_terms(claim)
        if not terms or len(content_terms(text) & terms) / len(terms) < MIN_SHARED_TERMS:
            return None
    claimed = set(quantities(claim))
    if claimed and not set(quantities(text)) - claimed:
        return None  # the same quantities or none: nothing this passage could contradict
    return text


_LABEL = re.compile(r"^([A-Za-z][\w-]*[_.][\w.-]*)(?:\s*\([^)]*\))?:\s")
"""A passage's label that is a setting's term line ("hash_mem_multiplier (floating point): …")."""


def product_names(question: str) -> set[str]:
    """The names in ``question`` that say which product or component it is about.

    Capitalised words after the first (``Redis``, ``Sentinel``, ``OpenSSH``, a possessive
    ``'s`` dropped), CamelCase names (``ProxyJump``) and capitals (``RSA``), lower-cased;
    one-letter words and the pronoun "I" are not names.
    """
    words = re.findall(r"[A-Za-z][\w-]*", re.sub(r"['\u2019]s\b", "", question))
    return {
        w.lower() for w in words[1:] if len(w) > 1 and (w[0].isupper() or CAMEL_CASE.fullmatch(w))
    }


def contradicted(found: Challenge, reply: PassageAnswers) -> tuple[Document, str] | None:
    """The first passage whose answer, as the model read it, differs from the claim's.

    The model reads (what each passage answers); the code compares. The model's reading
    counts only as far as the passage bears it out: the value must be written in that
    passage, not in the claim, and not as another aspect than the question's
    (:func:`_of_another_aspect`). A value with a quantity differs when it shares none
    with the claim (compared as :func:`pipeline.conflicts.quantities` normalises them:
    "512 KB" is not "512 MB", "3" is "three"); a value without one (a policy, a
    command) only against a claim without one, and only when it is a single term, since
    "the default" or "at least three" read as words say nothing.

    Returns:
        The passage and its value as the model quoted it, or ``None``.
    """
    claimed = set(quantities(found.claim))
    for answer in reply.answers:
        if not 1 <= answer.source <= len(found.passages):
            continue
        value = " ".join(answer.value.split())
        passage = found.passages[answer.source - 1]
        stated = set(quantities(value))
        written = " ".join(passage["text"].split()).lower()
        if not value or not (
            value.lower() in written or (stated and stated <= set(quantities(written)))
        ):
            continue  # not in the passage ("4 MB" counts for "4MB")
        if _whole_in(value, found.claim):
            continue
        chunk = found.chunks[answer.source - 1]["text"]
        if found.aspect and _of_another_aspect(value, passage["text"], chunk, found.aspect):
            continue
        if _not_the_pages_own(value, passage["text"]):
            continue
        if (stated and not stated & claimed) or (not stated and not claimed and _term(value)):
            return passage, value
    return None


def _of_another_aspect(value: str, passage: str, chunk: str, aspect: str) -> bool:
    """Whether the passage gives ``value`` as another aspect than the one asked for.

    A table cell under a header that names another aspect (the linter's "Minimum" column
    read as a default), or a value whose nearest cue before it in its sentence is
    another aspect's ("the minimum size is 1024 bits" for a question about the default).
    """
    lowered = value.lower()
    for header, rows in _tables(chunk):
        for row in rows:
            cells = _cells(row)
            for n, cell in enumerate(cells):
                if lowered in cell.lower() and n < len(header):
                    named = column_aspect(header[n])
                    if named is not None:
                        return fact_aspect(named) != fact_aspect(aspect)
    before = _before(value, passage)
    cue = cue_aspect(before) if before is not None else None
    return cue is not None and fact_aspect(cue) != fact_aspect(aspect)


_NOT_OWN = re.compile(
    r"\b(?:e\.g\.|for example|for instance|such as|like|we|our|us|recommend\w*|suggest\w*"
    r"|try|consider|should|set\b[^.]{0,40}\bto|when (?:used|running|using)|for (?:ssd|a cache))\b",
    re.IGNORECASE,
)
"""Words before a value in its sentence that make it an example, advice or a site's own
choice ("such as 1.1", "we set … to", "when Redis is used as a cache, set … to"), not
what the page states as the fact."""


def _not_the_pages_own(value: str, passage: str) -> bool:
    """Whether the passage gives ``value`` as an example, advice or its own site's choice."""
    before = _before(value, passage)
    return before is not None and _NOT_OWN.search(before) is not None


def _before(value: str, passage: str) -> str | None:
    """The words before ``value`` in its sentence of ``passage`` (at most 80 characters).

    A label line counts as the sentence's start ("Minimum: 1s"); ``None`` when the passage
    does not write the value as read.
    """
    flat = " ".join(passage.split())
    at = flat.lower().find(value.lower())
    if at < 0:
        return None
    start = max(flat.rfind(". ", 0, at) + 1, at - 80, 0)
    return flat[start:at]


def _whole_in(value: str, text: str) -> bool:
    """Whether ``text`` writes ``value`` as a whole (6379 is not in 16379, 2.3 not in 2.30)."""
    pattern = rf"(?<![\w.]){re.escape(value)}(?!\w|\.\d)"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _tables(text: str) -> list[tuple[list[str], list[str]]]:
    """The Markdown tables of ``text``: each as its header's cells and its row lines."""
    tables: list[tuple[list[str], list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|"):
            block = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                block.append(lines[i])
                i += 1
            rows = [r for r in block[1:] if not TABLE_RULE.match(r.strip())]
            tables.append((_cells(block[0]), rows))
        i += 1
    return tables


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _term(value: str) -> bool:
    """A single term that can be a value (``noeviction``, ``allkeys-lru``), not a cue word."""
    word = value.strip("`'\".").lower()
    return bool(re.fullmatch(r"[a-z][\w.-]{2,}", word)) and word not in _CUE_WORDS


_CUE_WORDS = frozenset(
    [
        "default",
        "defaults",
        "maximum",
        "minimum",
        "limit",
        "none",
        "unset",
        "unlimited",
        "yes",
        "no",
        "true",
        "false",
    ]
)
"""Words that name an aspect or say nothing about its value: never a contradicting value."""


def as_conflict(question: str, found: Challenge, other: Document, value: str) -> Conflict:
    """The confirmed contradiction as a :class:`~pipeline.conflicts.Conflict` of two sides.

    The claim's side is its cited sources with the claim's quantities the passage does not
    give, as the claim writes them (or its text, when it has none); the other side is the
    passage's page with the value the model quoted.
    """
    subject = next(iter(sorted(identifiers(found.claim))), None) or next(
        iter(subjects_of(question)), "the fact asked for"
    )
    aspect = asked_aspect(question) or "value"
    theirs_stated = quantities(other["text"])
    mine_only = [w for q, w in quantities(found.claim).items() if q not in theirs_stated]
    ours = " ".join(mine_only) or found.claim
    mine = tuple(Statement(i, subject, aspect, ours, found.claim, ours) for i in found.cited)
    theirs = (Statement(other["id"], subject, aspect, value, other["text"], value),)
    return Conflict(subject, aspect, (Side(ours, mine), Side(value, theirs)))
