"""National identity numbers: Presidio's country recognisers, registered for English text.

Presidio 2.2.366 registers most country recognisers for their own language only (ES_NIF for
``es``, IT_FISCAL_CODE for ``it``, PL_PESEL for ``pl``), so an English analyzer skips them,
yet questions written in English carry foreign ids. This module builds them for English.

Two precision tiers, measured on ``tests/data/pii/technical.jsonl`` (see
``bench/redaction_eval.py``):

* Shape and checksum together are distinctive (letters and digits, or a fixed separator):
  ES_NIF, ES_NIE, IT_FISCAL_CODE, FI_PERSONAL_IDENTITY_CODE (checksums), UK_NINO,
  SG_NRIC_FIN, IN_PAN and US_SSN (shapes). Upstream scores are kept: redacted without
  context.
* Digits only, where a checksum passes for 1 number in 10 or 11: UK_NHS (10 digits),
  PL_PESEL (11), AU_TFN (9), IN_AADHAAR (12). Order, case and build numbers have the same
  shape, so these need a context word (``"NHS"``, ``"PESEL"``, ``"TFN"``/``"tax"``,
  ``"Aadhaar"``) among the five words before them: a valid checksum alone scores 0.3,
  below the threshold; the context word adds 0.35 (Presidio's
  ``LemmaContextAwareEnhancer``).

Left out: SE_PERSONNUMMER and TR_NATIONAL_ID (any 10-12 or 11 digits score 0.5 or 0.3
without a checksum), KR_RRN and ZA_ID_NUMBER (context words that match common English
words such as "id"), and the driving licence, passport and tax recognisers, whose bare
patterns are weaker than these.
"""

from __future__ import annotations

from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer
from presidio_analyzer.predefined_recognizers import (
    AuTfnRecognizer,
    EsNieRecognizer,
    EsNifRecognizer,
    FiPersonalIdentityCodeRecognizer,
    InAadhaarRecognizer,
    InPanRecognizer,
    ItFiscalCodeRecognizer,
    NhsRecognizer,
    PlPeselRecognizer,
    SgFinRecognizer,
    UkNinoRecognizer,
)

NATIONAL_ID_ENTITIES: tuple[str, ...] = (
    "US_SSN",
    "UK_NHS",
    "UK_NINO",
    "ES_NIF",
    "ES_NIE",
    "IT_FISCAL_CODE",
    "PL_PESEL",
    "FI_PERSONAL_IDENTITY_CODE",
    "SG_NRIC_FIN",
    "AU_TFN",
    "IN_PAN",
    "IN_AADHAAR",
)
"""Presidio entity types of the national ids the redactor removes (US_SSN is loaded by
Presidio's English defaults; the others by :func:`national_id_recognizers`)."""

REPLACED_DEFAULTS: tuple[str, ...] = ("NhsRecognizer",)
"""Recognisers Presidio loads for English that :func:`national_id_recognizers` replaces."""

NEEDS_CONTEXT_SCORE = 0.3
"""Score of a digits-only id whose checksum passes but has no context word (< threshold)."""


class ContextGatedRecognizer(PatternRecognizer):
    """A digits-only id recogniser that redacts only next to one of its context words.

    Wraps an upstream recogniser: its patterns (scores capped at
    :data:`NEEDS_CONTEXT_SCORE`, anchored at word boundaries) and its checksum. A failed
    checksum drops the match; a passing one keeps the capped score, which only a context
    word lifts over the threshold.
    """

    def __init__(
        self, upstream: PatternRecognizer, patterns: list[Pattern], context: list[str]
    ) -> None:
        """Build from ``upstream`` (constructed for the same language).

        Args:
            upstream: A Presidio recogniser with a checksum in ``validate_result``.
            patterns: Its patterns (the class's ``PATTERNS``).
            context: Single lower-case words; multi-word phrases never match a token.
        """
        super().__init__(
            supported_entity=upstream.supported_entities[0],
            name=f"{type(upstream).__name__}WithContext",
            patterns=[
                Pattern(p.name, rf"\b(?:{p.regex})\b", min(p.score, NEEDS_CONTEXT_SCORE))
                for p in patterns
            ],
            context=context,
            supported_language=upstream.supported_language,
        )
        self._upstream = upstream

    def validate_result(self, pattern_text: str) -> bool | None:
        """``None`` (keep the capped score) when the checksum passes, else ``False``."""
        return None if self._upstream.validate_result(pattern_text) else False


def national_id_recognizers(language: str) -> list[EntityRecognizer]:
    """The country id recognisers of :data:`NATIONAL_ID_ENTITIES` (but US_SSN), for ``language``.

    Context words are single words, matched whole (the analyzer uses
    ``context_matching_mode="whole_word"``; see :mod:`redaction.analyzer`).

    Args:
        language: The analyzer's language code, ``"en"``.

    Returns:
        Recognisers to add to the registry after removing :data:`REPLACED_DEFAULTS`.
    """
    en = language
    gated = ContextGatedRecognizer
    return [
        gated(NhsRecognizer(supported_language=en), NhsRecognizer.PATTERNS, ["nhs"]),
        gated(PlPeselRecognizer(supported_language=en), PlPeselRecognizer.PATTERNS, ["pesel"]),
        gated(AuTfnRecognizer(supported_language=en), AuTfnRecognizer.PATTERNS, ["tfn", "tax"]),
        gated(
            InAadhaarRecognizer(supported_language=en),
            InAadhaarRecognizer.PATTERNS,
            ["aadhaar", "aadhar", "uidai"],
        ),
        UkNinoRecognizer(context=["nino", "insurance"], supported_language=en),
        EsNifRecognizer(context=["dni", "nif"], supported_language=en),
        EsNieRecognizer(context=["nie"], supported_language=en),
        ItFiscalCodeRecognizer(context=["fiscale", "cf"], supported_language=en),
        FiPersonalIdentityCodeRecognizer(context=["hetu", "henkilötunnus"], supported_language=en),
        SgFinRecognizer(context=["nric", "fin"], supported_language=en),
        # Only the strict PAN shape: the weaker two match any 10-character token holding
        # four digits (dates, build ids) once "pan" is near.
        InPanRecognizer(
            patterns=InPanRecognizer.PATTERNS[:1], context=["pan"], supported_language=en
        ),
    ]
