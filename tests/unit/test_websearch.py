"""TavilySearch against the local fake provider: request shape, mapping, failures."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from pipeline.deps import WebSearchError
from pipeline.documents import chunk_id
from tests.fakes.web_provider import PAGE_WITH_HIDDEN_TEXT, FakeWebProvider, web_result
from websearch import MAX_RESULTS_CAP, TavilySearch

API_KEY = "tvly-test-SECRET-0123456789"
TENANT = "tenant-a"
PG_URL = "https://www.postgresql.org/about/news/postgresql-162-released/"


@pytest.fixture
def provider(web_provider: FakeWebProvider) -> FakeWebProvider:
    # Short local name for the shared stand-in from tests/conftest.py.
    return web_provider


@pytest.fixture
def search(provider: FakeWebProvider) -> Iterator[TavilySearch]:
    with TavilySearch(provider.url, API_KEY, timeout_s=2.0, tenant_id=TENANT) as client:
        yield client


def _parse_rfc3339(value: str) -> datetime:
    assert value.endswith("Z"), value
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


# -- request --------------------------------------------------------------------------


def test_sends_tavily_request_with_bearer_key(
    provider: FakeWebProvider, search: TavilySearch
) -> None:
    search.search("latest PostgreSQL release", 3)

    [request] = provider.received
    assert request.method == "POST"
    assert request.path == "/search"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.body == {
        "query": "latest PostgreSQL release",
        "max_results": 3,
        "search_depth": "basic",
        "include_raw_content": True,
    }
    assert API_KEY not in json.dumps(request.body)


def test_base_url_trailing_slash_is_ignored(provider: FakeWebProvider) -> None:
    with TavilySearch(provider.url + "/", API_KEY, tenant_id=TENANT) as client:
        client.search("q", 1)
    assert [r.path for r in provider.received] == ["/search"]


def test_max_results_is_capped(provider: FakeWebProvider, search: TavilySearch) -> None:
    search.search("q", 100)
    assert provider.requests[0]["max_results"] == MAX_RESULTS_CAP


def test_zero_results_wanted_makes_no_request(
    provider: FakeWebProvider, search: TavilySearch
) -> None:
    assert search.search("q", 0) == []
    assert provider.received == []


@pytest.mark.parametrize("query", ["", "   \n"])
def test_blank_query_is_refused_without_request(
    provider: FakeWebProvider, search: TavilySearch, query: str
) -> None:
    with pytest.raises(WebSearchError, match="blank query"):
        search.search(query, 3)
    assert provider.received == []


# -- mapping --------------------------------------------------------------------------


def test_results_map_to_web_documents(provider: FakeWebProvider, search: TavilySearch) -> None:
    provider.set_results(
        [
            web_result(PG_URL, "PostgreSQL 16.2 Released!", "snippet", PAGE_WITH_HIDDEN_TEXT, 0.93),
            web_result("https://example.org/b", "  Second\n page ", "Plain snippet text.", None, 1),
        ]
    )
    before = datetime.now(UTC).replace(microsecond=0)

    docs = search.search("latest PostgreSQL release", 3)

    after = datetime.now(UTC)
    assert [d["locator"] for d in docs] == [PG_URL, "https://example.org/b"]
    first, second = docs
    assert first["id"] == chunk_id(PG_URL, 0)
    assert first["source_type"] == "web"
    assert first["title"] == "PostgreSQL 16.2 Released!"
    assert first["tenant_id"] == TENANT
    assert first["position"] == 0
    assert first["score"] == pytest.approx(0.93)
    assert before <= _parse_rfc3339(first["updated_at"]) <= after
    assert second["title"] == "Second page"
    assert second["text"] == "Plain snippet text."
    assert second["score"] == 1.0
    assert isinstance(second["score"], float)


def test_ids_are_stable_across_searches(provider: FakeWebProvider, search: TavilySearch) -> None:
    provider.set_results([web_result(PG_URL, "t", "c")])
    assert search.search("a", 1)[0]["id"] == search.search("b", 1)[0]["id"]


def test_hidden_text_scripts_and_boilerplate_are_stripped(
    provider: FakeWebProvider, search: TavilySearch
) -> None:
    provider.set_results([web_result(PG_URL, "t", "snippet", PAGE_WITH_HIDDEN_TEXT)])

    [doc] = search.search("q", 1)

    assert doc["text"].startswith("PostgreSQL 16.2 Released The PostgreSQL Global")
    assert "released 16.2 on 8 February 2024." in doc["text"]
    assert "Fixes CVE-2024-0985 Fixes index corruption" in doc["text"]
    assert "PAYLOAD" not in doc["text"]
    assert "Ignore previous instructions" not in doc["text"]
    assert "Home | Docs" not in doc["text"]
    assert "  " not in doc["text"] and "\n" not in doc["text"]


def test_text_is_truncated_to_budget_at_a_word_boundary(provider: FakeWebProvider) -> None:
    words = [f"word{i}" for i in range(3000)]
    provider.set_results([web_result(PG_URL, "t", "c", "<p>" + " ".join(words) + "</p>")])

    with TavilySearch(provider.url, API_KEY, tenant_id=TENANT, text_budget=100) as client:
        [small] = client.search("q", 1)
    with TavilySearch(provider.url, API_KEY, tenant_id=TENANT) as client:
        [default] = client.search("q", 1)

    for doc, budget in ((small, 100), (default, 4000)):
        assert budget - 10 < len(doc["text"]) <= budget
        assert set(doc["text"].split()) <= set(words)  # no word cut in half


def test_snippet_is_used_when_page_has_no_visible_text(
    provider: FakeWebProvider, search: TavilySearch
) -> None:
    provider.set_results(
        [
            web_result("https://example.org/a", "a", "Snippet A.", None),
            web_result("https://example.org/b", "b", "Snippet B.", "<script>x()</script>"),
            web_result("https://example.org/c", "c", "Snippet C.", ""),
        ]
    )
    assert [d["text"] for d in search.search("q", 3)] == ["Snippet A.", "Snippet B.", "Snippet C."]


def test_unusable_results_are_skipped(provider: FakeWebProvider, search: TavilySearch) -> None:
    provider.respond_with_raw(
        json.dumps(
            {
                "results": [
                    web_result("javascript:alert(1)", "js", "not citable"),
                    web_result("https://example.org/empty", "e", "", "<style>p{}</style>"),
                    web_result("https://example.org/a", "a", "first"),
                    web_result("https://example.org/a", "a again", "duplicate"),
                    web_result("https://example.org/b", "b", "second"),
                    web_result("https://example.org/c", "c", "beyond max_results"),
                ]
            }
        )
    )
    docs = search.search("q", 2)
    assert [(d["locator"], d["text"]) for d in docs] == [
        ("https://example.org/a", "first"),
        ("https://example.org/b", "second"),
    ]


# -- failures -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (500, "HTTP 500: .*fake failure 500"),
        (502, "HTTP 502"),
        (401, r"HTTP 401 \(API key rejected\)"),
        (429, r"HTTP 429 \(rate limited\)"),
        (302, "HTTP 302"),  # redirects are not followed
        (400, "HTTP 400"),
    ],
)
def test_non_2xx_raises(
    provider: FakeWebProvider, search: TavilySearch, status: int, expected: str
) -> None:
    provider.fail_with(status)
    with pytest.raises(WebSearchError, match=expected) as info:
        search.search("q", 3)
    assert f"POST {provider.url}/search" in str(info.value)
    assert API_KEY not in str(info.value)


def test_key_echoed_by_provider_is_masked(provider: FakeWebProvider, search: TavilySearch) -> None:
    provider.fail_with(401, {"detail": {"error": f"Unauthorized: invalid API key {API_KEY}"}})
    with pytest.raises(WebSearchError) as info:
        search.search("q", 3)
    assert API_KEY not in str(info.value)
    assert "invalid API key ***" in str(info.value)


def test_timeout_raises(provider: FakeWebProvider) -> None:
    provider.respond_slowly(5.0)
    with (
        TavilySearch(provider.url, API_KEY, timeout_s=0.2, tenant_id=TENANT) as client,
        pytest.raises(WebSearchError, match=r"timed out after 0.2 s \(ReadTimeout\)") as info,
    ):
        client.search("q", 3)
    assert API_KEY not in str(info.value)


def test_connection_refused_raises() -> None:
    with socket.socket() as probe:  # find a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (
        TavilySearch(f"http://127.0.0.1:{port}", API_KEY, timeout_s=2.0, tenant_id=TENANT) as c,
        pytest.raises(WebSearchError, match="failed before any HTTP status: ConnectError") as info,
    ):
        c.search("q", 3)
    assert API_KEY not in str(info.value)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("{not json", "HTTP 200 with a body that is not valid JSON"),
        ("", "HTTP 200 with a body that is not valid JSON"),
        ("[]", "body is a JSON list, not an object"),
        ('{"query": "q"}', "body has no 'results' list"),
        ('{"results": {"url": "x"}}', "body has no 'results' list"),
        ('{"results": ["https://example.org"]}', r"results\[0\] is not an object"),
        ('{"results": [{"title": "t", "content": "c"}]}', r"results\[0\]\.url is missing"),
        (
            '{"results": [{"url": "https://e.org", "title": 3, "content": "c"}]}',
            r"results\[0\]\.title is of type int, not a string",
        ),
        (
            '{"results": [{"url": "https://e.org", "title": "t"}]}',
            r"results\[0\]\.content is missing",
        ),
        (
            '{"results": [{"url": "https://e.org", "title": "t", "content": "c", '
            '"raw_content": ["x"]}]}',
            r"results\[0\]\.raw_content is not a string or null",
        ),
    ],
)
def test_malformed_body_raises(
    provider: FakeWebProvider, search: TavilySearch, body: str, expected: str
) -> None:
    provider.respond_with_raw(body)
    with pytest.raises(WebSearchError, match=expected) as info:
        search.search("q", 3)
    assert "HTTP 200" in str(info.value)
    assert API_KEY not in str(info.value)


# -- construction and lifecycle -------------------------------------------------------


@pytest.mark.parametrize("base_url", ["ftp://example.org", "/search", "example.org", "http://[::1"])
def test_rejects_bad_base_url(base_url: str) -> None:
    with pytest.raises(ValueError, match="base_url"):
        TavilySearch(base_url, API_KEY, tenant_id=TENANT)


def test_rejects_empty_tenant() -> None:
    with pytest.raises(ValueError, match="tenant_id"):
        TavilySearch("http://127.0.0.1:1", API_KEY, tenant_id="")


def test_repr_hides_key(search: TavilySearch) -> None:
    assert API_KEY not in repr(search)
    assert TENANT in repr(search)


def test_shared_client_is_left_open(provider: FakeWebProvider) -> None:
    provider.set_results([web_result(PG_URL, "t", "c")])
    with httpx.Client(trust_env=False) as shared:
        for tenant in ("t1", "t2"):
            with TavilySearch(provider.url, API_KEY, client=shared, tenant_id=tenant) as client:
                assert client.search("q", 1)[0]["tenant_id"] == tenant
        assert not shared.is_closed
