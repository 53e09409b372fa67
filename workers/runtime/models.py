"""Model factories: chat models (any OpenAI-compatible endpoint) and embeddings, by settings."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from pipeline.deps import Models
from workers.settings import ModelEndpoint, Settings

MAX_OUTPUT_TOKENS = 768
"""Cap on one reply: structured replies are short, and a small model can loop."""


def make_chat_model(
    settings: Settings,
    model: str | None = None,
    endpoint: ModelEndpoint | None = None,
) -> BaseChatModel:
    """A ``ChatOpenAI`` for ``model`` at ``llm_base_url``, or for a fallback ``endpoint``.

    ``model`` defaults to ``settings.llm_model``. Short timeouts and few SDK retries: an
    outage is a handled state, and the graph moves on to the next model.
    """
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        base_url=endpoint.base_url if endpoint else settings.llm_base_url,
        model=endpoint.model if endpoint else model or settings.llm_model,
        api_key=endpoint.api_key if endpoint else settings.llm_api_key,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        temperature=0,
        max_completion_tokens=MAX_OUTPUT_TOKENS,
    )


def make_models(settings: Settings) -> Models:
    """Models by role: one for all roles, a separate verifier if set, and the fallbacks."""
    llm = make_chat_model(settings)
    verifier = (
        make_chat_model(settings, settings.verifier_model) if settings.verifier_model else None
    )
    fallbacks = tuple(make_chat_model(settings, endpoint=e) for e in settings.llm_fallbacks)
    return Models.single(llm, verifier, fallbacks)


def make_embeddings_for(settings: Settings) -> Embeddings | None:
    """The embedding model of hybrid-retrieval tenants (``CRAG_EMBEDDINGS``); ``None``: none.

    Raises:
        ValueError: ``CRAG_EMBEDDINGS`` names no known kind.
        ImportError: ``minilm`` without the ``embeddings`` extra (names the install command).
    """
    from corpus import make_embeddings

    return make_embeddings(
        settings.embeddings,
        settings.embeddings_base_url,
        settings.embeddings_model,
        api_key=settings.embeddings_api_key.get_secret_value() or None,
    )
