"""Validates a Tavily ``/search`` response body and maps its results to :class:`Document`.

Response shape (Tavily Search API, https://docs.tavily.com/documentation/api-reference/
endpoint/search)::

    {"query": str, "results": [{"title": str, "url": str, "content": str,
      "raw_content": str | null, "score": float, "published_date"?: str}, ...], ...}

Only ``results`` and, per result, ``url``, ``title`` and ``content`` are required; other
top-level keys (``answer``, ``images``, ``response_time``...) are ignored.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pipeline.documents import Document, chunk_id
from websearch.normalize import collapse_whitespace, web_document_text


class MalformedResponseError(ValueError):
    """The body parsed as JSON but does not have the Tavily response shape."""


def documents_from_response(
    payload: Any,
    *,
    tenant_id: str,
    fetched_at: str,
    max_results: int,
    text_budget: int,
) -> list[Document]:
    """Return up to ``max_results`` web documents from a parsed response body, in its order.

    Results with a non-HTTP(S) URL or without any visible text are skipped, and a URL seen
    twice keeps its first result, so every returned document is citable and ids are unique.

    Args:
        payload: The decoded JSON body.
        tenant_id: Tenant whose request produced the results.
        fetched_at: RFC 3339 UTC fetch time, stored as each document's ``updated_at``.
        max_results: Maximum number of documents to return.
        text_budget: Maximum characters of each document's text.

    Returns:
        Documents with ``source_type="web"``, ``locator`` = URL, ``id`` =
        ``chunk_id(url, 0)``, ``position`` 0 and the provider's ``score`` when numeric.

    Raises:
        MalformedResponseError: The body or one of its results lacks a required field or has
            a field of the wrong type.
    """
    if not isinstance(payload, dict):
        raise MalformedResponseError(f"body is a JSON {type(payload).__name__}, not an object")
    results = payload.get("results")
    if not isinstance(results, list):
        raise MalformedResponseError("body has no 'results' list")
    documents: list[Document] = []
    seen: set[str] = set()
    for index, result in enumerate(results):
        if len(documents) >= max_results:
            break
        document = _to_document(result, index, tenant_id, fetched_at, text_budget)
        if document is not None and document["locator"] not in seen:
            seen.add(document["locator"])
            documents.append(document)
    return documents


def _to_document(
    result: Any, index: int, tenant_id: str, fetched_at: str, text_budget: int
) -> Document | None:
    """Map one result to a document, or ``None`` if it cannot be cited or has no text."""
    if not isinstance(result, dict):
        raise MalformedResponseError(f"results[{index}] is not an object")
    url = _required_str(result, "url", index)
    title = _required_str(result, "title", index)
    content = _required_str(result, "content", index)
    raw_content = result.get("raw_content")
    if raw_content is not None and not isinstance(raw_content, str):
        raise MalformedResponseError(f"results[{index}].raw_content is not a string or null")
    url = url.strip()
    if urlsplit(url).scheme not in ("http", "https"):
        return None
    text = web_document_text(raw_content, content, text_budget)
    if not text:
        return None
    document = Document(
        id=chunk_id(url, 0),
        text=text,
        source_type="web",
        locator=url,
        title=collapse_whitespace(title) or url,
        updated_at=fetched_at,
        tenant_id=tenant_id,
        position=0,
    )
    score = result.get("score")
    # bool is an int subclass; a JSON true/false is not a score.
    if isinstance(score, int | float) and not isinstance(score, bool):
        document["score"] = float(score)
    return document


def _required_str(result: dict[str, Any], field: str, index: int) -> str:
    """Return ``result[field]`` if it is a string, else raise naming the field."""
    value = result.get(field)
    if not isinstance(value, str):
        state = "missing" if value is None else f"of type {type(value).__name__}, not a string"
        raise MalformedResponseError(f"results[{index}].{field} is {state}")
    return value
