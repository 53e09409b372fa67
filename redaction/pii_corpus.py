"""The labelled question sets the redactor is measured on (``tests/data/pii/*.jsonl``).

Format, one JSON object per line::

    {"text": "Ivan Petrov's card 4111 1111 1111 1111 ...",
     "pii": [{"type": "PERSON", "value": "Ivan Petrov"},
             {"type": "CREDIT_CARD", "value": "4111 1111 1111 1111"}]}

``pii`` lists every personal-data value embedded in ``text``, each an exact substring of it;
it is empty or absent for a question that carries none (the technical set). ``terms``
(optional; ``tests/data/egress``) lists the technical words a web search for the question
needs, each an exact substring too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CORE_PII_TYPES: tuple[str, ...] = (
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "IBAN_CODE",
    "NATIONAL_ID",
    "IP_ADDRESS",
    "STREET_ADDRESS",
)
"""The kinds the requirement lists and ``tests/data/pii`` covers: what the redactor was built
for. Corpus labels, not Presidio's entity names (one label ``NATIONAL_ID`` covers
``US_SSN``, ``UK_NHS``, ``ES_NIF`` and the other country ids)."""

PII_TYPES: tuple[str, ...] = (
    *CORE_PII_TYPES,
    "PASSPORT",
    "DATE_OF_BIRTH",
    "ACCOUNT_ID",
    "LICENSE_PLATE",
)
"""Every corpus label: the core kinds and those ``tests/data/egress`` adds."""


@dataclass(frozen=True)
class PiiValue:
    """One personal-data value inside a question.

    Attributes:
        type: One of :data:`PII_TYPES`.
        value: The exact text as it appears in the question, e.g. ``"+44 20 7946 0958"``.
    """

    type: str
    value: str


@dataclass(frozen=True)
class Question:
    """A question bound for web search and the personal data it carries (possibly none)."""

    text: str
    pii: tuple[PiiValue, ...] = ()
    terms: tuple[str, ...] = ()


class CorpusError(ValueError):
    """A corpus line is malformed; the message names the file and line."""


def load_questions(path: Path) -> list[Question]:
    """Read a JSONL question set.

    Args:
        path: A file in the format described in the module docstring.

    Returns:
        The questions in file order; blank lines are skipped.

    Raises:
        CorpusError: A line is not JSON, has no ``text``, uses a type outside
            :data:`PII_TYPES`, or labels a value or term that is not a substring of its text.
    """
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            raw = json.loads(line)
            text = raw["text"]
            pii = tuple(PiiValue(item["type"], item["value"]) for item in raw.get("pii", []))
            terms = tuple(str(term) for term in raw.get("terms", []))
        except (ValueError, KeyError, TypeError) as exc:
            raise CorpusError(f"{where}: not a question record ({exc})") from exc
        for item in pii:
            if item.type not in PII_TYPES:
                raise CorpusError(f"{where}: unknown type {item.type!r}")
            if item.value not in text:
                raise CorpusError(f"{where}: {item.value!r} is not in the text")
        for term in terms:
            if term not in text:
                raise CorpusError(f"{where}: term {term!r} is not in the text")
        questions.append(Question(text, pii, terms))
    return questions
