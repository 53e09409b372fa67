"""Chat-model factory: any OpenAI-compatible endpoint, picked by settings."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from pipeline.deps import Models
from workers.settings import Settings

MAX_OUTPUT_TOKENS = 768
"""Cap on one reply: structured replies are short, and a small model can loop."""


def make_chat_model(settings: Settings, model: str | None = None) -> BaseChatModel:
    """A ``ChatOpenAI`` for ``model`` (default ``settings.llm_model``) at ``llm_base_url``.

    Short timeouts and few SDK retries: the graph treats an outage as a handled state.
    """
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        base_url=settings.llm_base_url,
        model=model or settings.llm_model,
        api_key=settings.llm_api_key,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        temperature=0,
        max_completion_tokens=MAX_OUTPUT_TOKENS,
    )


def make_models(settings: Settings) -> Models:
    """Models by role: one model for all roles, plus a separate verifier when configured."""
    llm = make_chat_model(settings)
    verifier = (
        make_chat_model(settings, settings.verifier_model) if settings.verifier_model else None
    )
    return Models.single(llm, verifier)
