"""A :class:`~pipeline.deps.WebSearch` for the Tavily Search API and compatible providers.

Request (Tavily Search API, https://docs.tavily.com/documentation/api-reference/endpoint/
search)::

    POST {base_url}/search
    Authorization: Bearer <api key>
    {"query": str, "max_results": int, "search_depth": "basic", "include_raw_content": true}

The only network traffic is that one request to ``base_url``; the default HTTP client
ignores proxy variables and ``.netrc`` so nothing else is contacted.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import TracebackType

import httpx

from pipeline.deps import WebSearchError
from pipeline.documents import Document
from websearch.normalize import DEFAULT_TEXT_BUDGET, collapse_whitespace
from websearch.tavily_results import MalformedResponseError, documents_from_response

MAX_RESULTS_CAP = 20
"""Tavily accepts ``max_results`` from 0 to 20; larger requests are capped, not rejected."""

_DETAIL_CHARS = 200  # enough of an error body to diagnose, short enough for a log line
_STATUS_HINTS = {401: " (API key rejected)", 403: " (API key rejected)", 429: " (rate limited)"}


class TavilySearch:
    """Searches the web through a Tavily-compatible provider for one tenant.

    ``search`` only ever receives queries that have already been redacted; this class does
    not redact. It is cheap to build: the worker keeps one ``httpx.Client`` per process and
    builds a ``TavilySearch`` per job, passing that client and the job's tenant.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        timeout_s: float = 10.0,
        client: httpx.Client | None = None,
        *,
        tenant_id: str,
        text_budget: int = DEFAULT_TEXT_BUDGET,
    ) -> None:
        """Configure the provider.

        Args:
            base_url: Provider root, e.g. ``"https://api.tavily.com"``; ``/search`` is appended.
            api_key: Sent as ``Authorization: Bearer <key>``; omitted when empty. Never
                appears in error messages or ``repr``.
            timeout_s: Per-request timeout in seconds (connect, read, write and pool each).
            client: Shared HTTP client; the caller owns and closes it. When ``None``, a
                private client is created and closed by :meth:`close`.
            tenant_id: Tenant stamped on every returned document.
            text_budget: Maximum characters of each document's text.

        Raises:
            ValueError: ``base_url`` is not an absolute http(s) URL, ``tenant_id`` is empty,
                or ``timeout_s`` or ``text_budget`` is not positive.
        """
        try:
            parsed = httpx.URL(base_url)
        except httpx.InvalidURL as exc:
            raise ValueError(f"base_url is not a valid URL: {base_url!r}") from exc
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise ValueError(f"base_url must be an absolute http(s) URL, got {base_url!r}")
        if not tenant_id:
            raise ValueError("tenant_id must be non-empty: web documents carry their tenant")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        if text_budget < 1:
            raise ValueError(f"text_budget must be at least 1, got {text_budget}")
        self._endpoint = base_url.rstrip("/") + "/search"
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._owns_client = client is None
        # trust_env=False: no proxy from the environment and no .netrc credentials, so the
        # request goes to base_url and nowhere else.
        self._client = client or httpx.Client(trust_env=False, follow_redirects=False)
        self._tenant_id = tenant_id
        self._text_budget = text_budget

    @property
    def tenant_id(self) -> str:
        """The tenant stamped on returned documents."""
        return self._tenant_id

    def __repr__(self) -> str:
        return f"TavilySearch(endpoint={self._endpoint!r}, tenant_id={self._tenant_id!r})"

    def search(self, query: str, max_results: int) -> list[Document]:
        """Return up to ``max_results`` normalised web documents for ``query``, best first.

        Args:
            query: A redacted query.
            max_results: Results wanted; ``<= 0`` returns ``[]`` without a request, values
                above :data:`MAX_RESULTS_CAP` are capped.

        Returns:
            Web documents (see :func:`websearch.tavily_results.documents_from_response`),
            ``updated_at`` set to the fetch time.

        Raises:
            WebSearchError: The query is blank, the provider could not be reached or timed
                out, answered with a non-2xx status, or sent a body that is not JSON or not
                shaped like a Tavily response. The message names the endpoint, the problem
                and the HTTP status, and never contains the API key.
        """
        if not query.strip():
            raise WebSearchError("refusing to send a blank query to the web-search provider")
        if max_results <= 0:
            return []
        response = self._post(
            {
                "query": query,
                "max_results": min(max_results, MAX_RESULTS_CAP),
                "search_depth": "basic",
                "include_raw_content": True,
            }
        )
        fetched_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        where = f"POST {self._endpoint} answered HTTP {response.status_code}"
        try:
            payload = response.json()
        except ValueError as exc:
            raise WebSearchError(f"{where} with a body that is not valid JSON") from exc
        try:
            return documents_from_response(
                payload,
                tenant_id=self._tenant_id,
                fetched_at=fetched_at,
                max_results=max_results,
                text_budget=self._text_budget,
            )
        except MalformedResponseError as exc:
            raise WebSearchError(f"{where} with an unusable body: {exc}") from exc

    def _post(self, body: dict[str, object]) -> httpx.Response:
        """Send the search request; return a 2xx response or raise ``WebSearchError``."""
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        try:
            response = self._client.post(
                self._endpoint, json=body, headers=headers, timeout=self._timeout_s
            )
        except httpx.TimeoutException as exc:
            raise WebSearchError(
                f"POST {self._endpoint} timed out after {self._timeout_s:g} s "
                f"({type(exc).__name__}); no HTTP status"
            ) from exc
        except httpx.HTTPError as exc:
            raise WebSearchError(
                f"POST {self._endpoint} failed before any HTTP status: "
                f"{type(exc).__name__}: {self._scrub(str(exc))}"
            ) from exc
        if not response.is_success:
            detail = self._scrub(collapse_whitespace(response.text)[:_DETAIL_CHARS])
            hint = _STATUS_HINTS.get(response.status_code, "")
            raise WebSearchError(
                f"POST {self._endpoint} answered HTTP {response.status_code}{hint}: "
                f"{detail or '<empty body>'}"
            )
        return response

    def _scrub(self, message: str) -> str:
        """Return ``message`` with the API key masked, in case a provider echoes it back."""
        return message.replace(self._api_key, "***") if self._api_key else message

    def close(self) -> None:
        """Close the HTTP client if this instance created it; a shared client is left open."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> TavilySearch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
