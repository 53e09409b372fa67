"""Web search for the graph's fallback route: a Tavily-compatible client and page cleaning.

Queries reach this package already redacted (see :mod:`redaction`); results come back as
:class:`~pipeline.documents.Document` values with ``source_type="web"``.
"""

from websearch.normalize import DEFAULT_TEXT_BUDGET, web_document_text
from websearch.tavily import MAX_RESULTS_CAP, TavilySearch

__all__ = ["DEFAULT_TEXT_BUDGET", "MAX_RESULTS_CAP", "TavilySearch", "web_document_text"]
