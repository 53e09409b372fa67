"""Errors raised while turning files into indexed chunks."""

from __future__ import annotations


class IngestError(RuntimeError):
    """A file or path could not be ingested, or the index refused the write.

    The message always names the offending file (or the index, for write failures), so
    an operator can act on it without a traceback.
    """
