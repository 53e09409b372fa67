"""The PII corpus through the real redactor: nothing personal reaches the provider, and
ordinary technical questions go out (almost) untouched."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from redaction import PresidioRedactor
from redaction.evaluate import measure_false_redactions, measure_recall
from redaction.pii_corpus import CORE_PII_TYPES, PII_TYPES, Question, load_questions

DATA = Path(__file__).resolve().parents[1] / "data" / "pii"

MAX_FALSE_REDACTIONS = 1
"""Measured with ``python -m bench.redaction_eval``: 1 of the 50 technical questions loses
a token, "10.20.0.0/16" in "add a static route to 10.20.0.0/16", redacted as an IP address.
A network range is not a host, but a public range can identify an organisation, and telling
the two apart is not worth an exception; the query still reads "add a static route through
the VPN gateway in pfSense 2.7.2". Products, versions, dates, order, ticket and error numbers
and paths all survive; a second false redaction is a regression."""

KNOWN_FALSE_REDACTIONS = {("IP_ADDRESS", "10.20.0.0/16")}


@pytest.fixture(scope="module")
def personal() -> list[Question]:
    return load_questions(DATA / "personal.jsonl")


@pytest.fixture(scope="module")
def technical() -> list[Question]:
    return load_questions(DATA / "technical.jsonl")


class TestCorpus:
    def test_personal_set_is_large_and_covers_every_type(self, personal: list[Question]) -> None:
        counts = Counter(item.type for question in personal for item in question.pii)
        assert len(personal) >= 50
        assert all(question.pii for question in personal)
        assert {t: counts[t] >= 5 for t in CORE_PII_TYPES} == dict.fromkeys(CORE_PII_TYPES, True)

    def test_technical_set_has_fifty_questions_without_labels(
        self, technical: list[Question]
    ) -> None:
        assert len(technical) == 50
        assert not any(question.pii for question in technical)


def test_no_personal_value_reaches_the_provider(
    redactor: PresidioRedactor, personal: list[Question]
) -> None:
    report = measure_recall(redactor, personal)

    leaks = [f"{m.item.type} {m.item.value!r} -> {m.search_text!r}" for m in report.misses]
    assert leaks == []
    assert {row.type: row.recall for row in report.by_type} == dict.fromkeys(PII_TYPES, 1.0)


def test_technical_questions_keep_their_search_terms(
    redactor: PresidioRedactor, technical: list[Question]
) -> None:
    report = measure_false_redactions(redactor, technical)

    removed = {
        (entity, span)
        for flagged in report.flagged
        for entity, span in zip(flagged.entities, flagged.removed, strict=True)
    }
    assert len(report.flagged) <= MAX_FALSE_REDACTIONS, removed
    assert removed <= KNOWN_FALSE_REDACTIONS
