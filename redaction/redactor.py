"""The :class:`~pipeline.deps.Redactor` implementation backed by Presidio.

Source: Presidio analyzer and anonymizer (https://microsoft.github.io/presidio/).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from presidio_analyzer import (
    AnalyzerEngine,
    EntityRecognizer,
    PatternRecognizer,
    RecognizerResult,
)
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import ConflictResolutionStrategy, OperatorConfig
from presidio_anonymizer.entities import RecognizerResult as Span

from pipeline.deps import Redaction
from redaction.analyzer import LANGUAGE
from redaction.national_ids import NATIONAL_ID_ENTITIES
from redaction.street_address import STREET_ADDRESS

DEFAULT_ENTITIES: tuple[str, ...] = (
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "IBAN_CODE",
    "IP_ADDRESS",
    STREET_ADDRESS,
    *NATIONAL_ID_ENTITIES,
)
"""Presidio entity types redacted by default (national ids: see
:data:`redaction.national_ids.NATIONAL_ID_ENTITIES`).

Left out on purpose: ``DATE_TIME`` (spaCy tags version and order numbers such as
"PostgreSQL 15.4" or "order 12345" as dates), ``LOCATION`` (city and country names are
usually the subject of a web question, e.g. "PostgreSQL meetups in Berlin", and the small
model also tags e-mail addresses as places), ``ORGANIZATION`` and ``URL`` (product, vendor
and documentation names are what the search needs). Pass ``entities=`` to change the set.
"""

DENY_TERM = "DENY_TERM"
"""Entity type of a tenant's deny term (see :meth:`PresidioRedactor.redact`)."""

DEFAULT_SCORE_THRESHOLD = 0.4
"""Minimum Presidio confidence (0-1, inclusive) for a span to be redacted.

0.4 is the score Presidio gives a phone number that has no context word nearby, so bare
numbers like "415-555-0132" are still caught.
"""

_TOKEN = re.compile(r"\S+")


class PresidioRedactor:
    """Replaces personal data with ``<ENTITY_TYPE>`` placeholders; makes no network call.

    Build it once per process (see :func:`redaction.build_redactor`); it holds a loaded
    spaCy pipeline. Not documented as thread-safe by Presidio, so share it between jobs of one
    prefork worker process, not between threads.
    """

    def __init__(
        self,
        analyzer: AnalyzerEngine,
        *,
        entities: Sequence[str] = DEFAULT_ENTITIES,
        score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    ) -> None:
        """Wrap a loaded analyzer.

        Args:
            analyzer: An English analyzer, normally from :func:`redaction.build_analyzer`.
            entities: Presidio entity types to redact (see :data:`DEFAULT_ENTITIES`).
            score_threshold: Minimum confidence in [0, 1] for a span to be redacted.

        Raises:
            ValueError: ``entities`` is empty or ``score_threshold`` is outside [0, 1].
        """
        if not entities:
            raise ValueError("entities must name at least one Presidio entity type")
        if not 0.0 <= score_threshold <= 1.0:
            raise ValueError(f"score_threshold must be in [0, 1], got {score_threshold}")
        self._analyzer = analyzer
        self._anonymizer = AnonymizerEngine()
        self._entities = list(entities)
        self._score_threshold = score_threshold
        # Explicit per-type values so the placeholder format does not depend on Presidio's
        # default for the replace operator.
        self._operators = {
            entity: OperatorConfig("replace", {"new_value": f"<{entity}>"})
            for entity in (*self._entities, DENY_TERM)
        }

    @property
    def analyzer(self) -> AnalyzerEngine:
        """The loaded analyzer, to build variants (other entities) without reloading spaCy."""
        return self._analyzer

    @property
    def entities(self) -> tuple[str, ...]:
        """The entity types this redactor replaces."""
        return tuple(self._entities)

    def redact(self, text: str, deny_terms: Sequence[str] = ()) -> Redaction:
        """Return ``text`` with each personal-data span replaced by ``<ENTITY_TYPE>``.

        Typical cost is 5-25 ms for a question-sized text on one CPU core.

        Args:
            text: Any text, e.g. a user question bound for web search.
            deny_terms: The tenant's own terms that must never leave (customer names,
                project code names); matched case-insensitively as whole words and
                replaced by ``<DENY_TERM>``.

        Returns:
            The redacted text and the entity types replaced, in text order.
        """
        if not text.strip():
            return Redaction(text=text)
        terms = [t for t in deny_terms if t.strip()]
        ad_hoc: list[EntityRecognizer] = (
            [PatternRecognizer(supported_entity=DENY_TERM, deny_list=terms, deny_list_score=1.0)]
            if terms
            else []
        )
        found = self._analyzer.analyze(
            text=text,
            language=LANGUAGE,
            entities=[*self._entities, DENY_TERM] if terms else self._entities,
            score_threshold=self._score_threshold,
            ad_hoc_recognizers=ad_hoc,
        )
        spans = [span for result in found if (span := _to_span(result, text)) is not None]
        if not spans:
            return Redaction(text=text)
        anonymized = self._anonymizer.anonymize(
            text=text,
            analyzer_results=spans,
            operators=self._operators,
            # Overlapping spans of different types are trimmed, not dropped, so every
            # character any recogniser flagged ends up inside some placeholder.
            conflict_resolution=ConflictResolutionStrategy.REMOVE_INTERSECTIONS,
        )
        items = sorted(anonymized.items, key=lambda item: item.start)
        return Redaction(text=anonymized.text, entities=[item.entity_type for item in items])


def _to_span(result: RecognizerResult, text: str) -> Span | None:
    """Convert an analyzer result to the anonymizer's span type, fixing PERSON over versions.

    The small spaCy model tags "<product> <version>" as a person ("Django 4.2", "Java 21",
    "Quarkus 3.8") and sometimes swallows a number after a real name ("Maria Gonzalez 2").
    Names carry no digits, so trailing digit-bearing tokens are cut off the span. If one word
    or none is left, the span is taken for a product and dropped, so the product name and
    version reach the search; if two or more words are left, they are still redacted. A
    two-word product with a version ("Spring Boot 3.2") may therefore lose its name: the
    safe side.

    Returns:
        The span to redact, or ``None`` to keep the text.
    """
    end = result.end
    if result.entity_type == "PERSON":
        words = list(_TOKEN.finditer(text, result.start, result.end))
        trimmed = False
        while words and any(char.isdigit() for char in words[-1].group()):
            words.pop()
            trimmed = True
        if trimmed and len(words) <= 1:
            return None
        end = words[-1].end()
    return Span(result.entity_type, result.start, end, result.score)
