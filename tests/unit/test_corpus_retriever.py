"""TenantRetriever against a scripted client: query shape, hit mapping, error mapping."""

from __future__ import annotations

from typing import Any

import pytest
from elastic_transport import ApiResponseMeta, HttpHeaders, NodeConfig
from elasticsearch import BadRequestError, ConnectionError, ConnectionTimeout, NotFoundError

from corpus import TenantRetriever
from corpus.retriever import reciprocal_rank_fusion
from pipeline.deps import RetrievalError, Retriever

META = ApiResponseMeta(
    status=404,
    http_version="1.1",
    headers=HttpHeaders(),
    duration=0.0,
    node=NodeConfig("http", "127.0.0.1", 29200),
)


def api_error(cls: type[Exception], error_type: str) -> Exception:
    return cls(message=error_type, meta=META, body={"error": {"type": error_type}})  # type: ignore[call-arg]


def hit(tenant: str = "acme", position: int = 2, score: float = 3.5) -> dict[str, Any]:
    return {
        "_id": "abc",
        "_score": score,
        "_source": {
            "text": "VACUUM reclaims storage.",
            "metadata": {
                "id": "abc",
                "tenant_id": tenant,
                "source_type": "index",
                "locator": "/docs/vacuum.html",
                "title": "VACUUM",
                "updated_at": "2024-05-01T12:00:00Z",
                "position": position,
            },
        },
    }


class ScriptedClient:
    """Records calls; answers with a fixed response or raises a fixed error."""

    def __init__(self, response: Any = None, error: Exception | None = None) -> None:
        self.response, self.error = response, error
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def _answer(self, name: str, kwargs: dict[str, Any]) -> Any:
        self.calls.append((name, kwargs))
        if self.error is not None:
            raise self.error
        return self.response

    def search(self, **kwargs: Any) -> Any:
        return self._answer("search", kwargs)

    def count(self, **kwargs: Any) -> Any:
        return self._answer("count", kwargs)


def retriever(client: ScriptedClient, tenant: str = "acme") -> Retriever:
    return TenantRetriever(client, tenant)  # type: ignore[arg-type]


def test_search_always_filters_by_tenant_and_maps_hits() -> None:
    client = ScriptedClient({"hits": {"hits": [hit()]}})
    docs = retriever(client).search("how does vacuum work", 4)
    [(name, kwargs)] = client.calls
    assert name == "search"
    assert kwargs["index"] == "crag-acme"
    assert kwargs["size"] == 4
    assert kwargs["query"] == {
        "bool": {
            "must": [{"match": {"text": "how does vacuum work"}}],
            "filter": [{"term": {"metadata.tenant_id": "acme"}}],
        }
    }
    assert "vector" not in kwargs["source_includes"]
    assert docs == [
        {
            "id": "abc",
            "text": "VACUUM reclaims storage.",
            "source_type": "index",
            "locator": "/docs/vacuum.html",
            "title": "VACUUM",
            "updated_at": "2024-05-01T12:00:00Z",
            "tenant_id": "acme",
            "position": 2,
            "score": 3.5,
        }
    ]


def test_count_filters_by_tenant() -> None:
    client = ScriptedClient({"count": 7})
    assert retriever(client).count() == 7
    assert client.calls == [
        ("count", {"index": "crag-acme", "query": {"term": {"metadata.tenant_id": "acme"}}})
    ]


def test_count_of_missing_index_is_zero() -> None:
    client = ScriptedClient(error=api_error(NotFoundError, "index_not_found_exception"))
    assert retriever(client).count() == 0


@pytest.mark.parametrize(
    "error",
    [
        ConnectionError("Connection refused"),
        ConnectionTimeout("timed out"),
        api_error(BadRequestError, "search_phase_execution_exception"),
        api_error(NotFoundError, "index_not_found_exception"),
    ],
    ids=["refused", "timeout", "bad-request", "missing-index"],
)
def test_search_failures_raise_retrieval_error_naming_tenant_and_index(error: Exception) -> None:
    with pytest.raises(RetrievalError, match=r"tenant 'acme'.*index crag-acme") as info:
        retriever(ScriptedClient(error=error)).search("vacuum", 4)
    assert info.value.__cause__ is error


def test_count_failure_raises_retrieval_error() -> None:
    client = ScriptedClient(error=ConnectionError("Connection refused"))
    with pytest.raises(RetrievalError, match=r"tenant 'acme': count on index crag-acme"):
        retriever(client).count()


def test_hit_of_another_tenant_is_refused() -> None:
    client = ScriptedClient({"hits": {"hits": [hit(tenant="globex")]}})
    with pytest.raises(RetrievalError, match="belongs to tenant 'globex'"):
        retriever(client).search("vacuum", 4)


def test_malformed_hit_raises() -> None:
    bad = hit()
    del bad["_source"]["metadata"]["locator"]
    with pytest.raises(RetrievalError, match="malformed hit"):
        retriever(ScriptedClient({"hits": {"hits": [bad]}})).search("vacuum", 4)


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_is_a_value_error(query: str) -> None:
    client = ScriptedClient()
    with pytest.raises(ValueError, match="empty"):
        retriever(client).search(query, 4)
    assert client.calls == []


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be"):
        retriever(ScriptedClient()).search("vacuum", 0)


def test_invalid_tenant_is_rejected_at_construction() -> None:
    with pytest.raises(ValueError, match="invalid tenant id 'ACME'"):
        retriever(ScriptedClient(), tenant="ACME")


class TestReciprocalRankFusion:
    def test_scores_are_sums_of_reciprocal_ranks(self) -> None:
        fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]], k=60)
        assert [doc for doc, _ in fused] == ["a", "c", "b"]
        assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
        assert fused[1][1] == pytest.approx(1 / 63 + 1 / 61)
        assert fused[2][1] == pytest.approx(1 / 62)

    def test_a_document_in_one_list_only_still_counts(self) -> None:
        assert [d for d, _ in reciprocal_rank_fusion([[], ["x"]])] == ["x"]
