"""The :class:`~pipeline.deps.Redactor` implementation backed by Presidio.

Source: Presidio analyzer and anonymizer (https://microsoft.github.io/presidio/).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
from redaction.checked_spans import refine_results
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
"""Presidio entity types redacted by default.

Measured with ``python -m bench.redaction_eval`` on ``tests/data/pii``: 70 questions carrying
108 personal values (recall 100% for every type with this set) and 50 ordinary technical
questions, of which 1 loses a token (a private network range, "10.20.0.0/16", taken for an
IP address; see ``tests/unit/test_redaction_corpus.py``). National ids are listed in
:data:`redaction.national_ids.NATIONAL_ID_ENTITIES`.

Left out on purpose; what each would add on the 50 technical questions (``--add ENTITY``):

* ``DATE_TIME``: 18 more questions (19 of 50). spaCy reads versions, ports and error,
  case and build numbers as dates ("Oracle 19c", "Fedora 40", "1.7.13", "port 8443",
  "error 18456 state 38", "case 170934211"), and a release date is what a question about a
  release needs. A version or an order number is not a date.
* ``ORGANIZATION``: 18 more (19 of 50): "Redis 7.2", "GitLab", "Intel", "ZooKeeper".
  Product, vendor and project names are what the search needs.
* ``LOCATION``: 4 more ("Shopify", "CrashLoopBackOff", "PostgreSQL" tagged as places); a
  city or country is usually the subject of a web question. Street addresses are
  ``STREET_ADDRESS``; the city after one is kept.
* ``URL``: 2 more ("java.lang", "MSSQL16.MSSQLSERVER" read as domains); links and file
  names are the question.

Pass ``entities=`` to change the set.
"""

DENY_TERM = "DENY_TERM"
"""Entity type of a tenant's deny term (see :meth:`PresidioRedactor.redact`)."""

DEFAULT_SCORE_THRESHOLD = 0.4
"""Minimum Presidio confidence (0-1, inclusive) for a span to be redacted.

0.4 is the score Presidio gives a phone number that has no context word nearby, so bare
numbers like "415-555-0132" are still caught. Measured (``--threshold``): 0.3 changes
nothing on the corpus but lets weaker patterns through; 0.5 loses 11 of 15 phone numbers
and the two national ids that rely on a context word (recall 88%); 0.7 also loses every
street address and most IP addresses (68%). No threshold removes the one technical false
redaction without losing recall: the network range scores 0.6 like any IPv4 address.
"""


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

    def redact(
        self,
        text: str,
        deny_terms: Sequence[str] = (),
        *,
        allow: Callable[[str, str], bool] | None = None,
    ) -> Redaction:
        """Return ``text`` with each personal-data span replaced by ``<ENTITY_TYPE>``.

        Typical cost is 5-25 ms for a question-sized text on one CPU core.

        Args:
            text: Any text, e.g. a user question bound for web search.
            deny_terms: The tenant's own terms that must never leave (customer names,
                project code names); matched case-insensitively as whole words and
                replaced by ``<DENY_TERM>``.
            allow: Optional ``(entity_type, span_text) -> bool``: a span it returns True for
                is left in place (the minimiser vouching for a known false-positive shape,
                :meth:`redaction.minimise.Minimiser.vouches`). Never asked about deny terms.

        Returns:
            The redacted text and the entity types replaced, in text order.
        """
        if not text.strip():
            return Redaction(text=text)
        spans = [_to_span(result) for result in self.analyze(text, deny_terms, allow=allow)]
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

    def analyze(
        self,
        text: str,
        deny_terms: Sequence[str] = (),
        *,
        allow: Callable[[str, str], bool] | None = None,
    ) -> list[RecognizerResult]:
        """The spans :meth:`redact` would replace, refined, in no particular order.

        Args:
            text: Any text.
            deny_terms: As for :meth:`redact`.
            allow: As for :meth:`redact`.
        """
        if not text.strip():
            return []
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
        refined = refine_results(found, text)
        if allow is None:
            return list(refined)
        return [
            r
            for r in refined
            if r.entity_type == DENY_TERM or not allow(r.entity_type, text[r.start : r.end])
        ]


def _to_span(result: RecognizerResult) -> Span:
    """Convert an analyzer result to the anonymizer's span type."""
    return Span(result.entity_type, result.start, result.end, result.score)
