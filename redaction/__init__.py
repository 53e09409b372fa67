"""Strips personal data from text before it leaves the fleet (Presidio + spaCy, offline).

Usage: build once per process with :func:`build_redactor`, then call
``redactor.redact(text)`` for each query bound for web search.
"""

from redaction.analyzer import DEFAULT_MODEL, RedactorSetupError, build_analyzer
from redaction.build import build_redactor
from redaction.redactor import DEFAULT_ENTITIES, DEFAULT_SCORE_THRESHOLD, PresidioRedactor

__all__ = [
    "DEFAULT_ENTITIES",
    "DEFAULT_MODEL",
    "DEFAULT_SCORE_THRESHOLD",
    "PresidioRedactor",
    "RedactorSetupError",
    "build_analyzer",
    "build_redactor",
]
