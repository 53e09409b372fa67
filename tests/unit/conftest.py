"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

from redaction.minimise import Minimiser, load_vocabulary


@pytest.fixture(scope="session")
def minimiser() -> Minimiser:
    """One web-query minimiser with the shipped word lists (loaded once, ~2 s)."""
    return Minimiser(load_vocabulary())
