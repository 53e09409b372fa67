"""Builds a web query from the parts of a question known to be safe (issue 11).

The code is in :mod:`redaction.minimise.minimiser`; this package re-exports its public API.
"""

from redaction.minimise.minimiser import (
    LANGUAGES,
    MIN_TERMS,
    TERMS_FILE,
    Minimised,
    Minimiser,
    Vocabulary,
    load_vocabulary,
)

__all__ = [
    "LANGUAGES",
    "MIN_TERMS",
    "TERMS_FILE",
    "Minimised",
    "Minimiser",
    "Vocabulary",
    "load_vocabulary",
]
