"""The one settings object, read from ``CRAG_*`` environment variables at the process edge.

Only the CLI and the Celery worker start-up call :func:`get_settings`; everything else
receives the values it needs as arguments. Secrets are ``SecretStr`` so they never print.
Defaults match the local services that ``infra/up`` starts on 127.0.0.1.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class ModelEndpoint(BaseModel):
    """A fallback model: an OpenAI-compatible endpoint and a model name there."""

    base_url: str
    model: str
    api_key: SecretStr = SecretStr("not-needed")


class Settings(BaseSettings):
    """Process configuration (env prefix ``CRAG_``, e.g. ``CRAG_REDIS_URL``).

    Raises:
        pydantic.ValidationError: A value is out of its range (``CRAG_RETRIEVE_K=0``, a
            negative timeout, thresholds out of order); the message names the field.
    """

    model_config = SettingsConfigDict(env_prefix="CRAG_", extra="ignore")

    # Services
    database_url: str = Field(
        "postgresql+psycopg://crag:crag@127.0.0.1:25432/crag",
        description="SQLAlchemy URL of the app tables and the LangGraph checkpointer.",
    )
    redis_url: str = Field("redis://127.0.0.1:26379/0", description="Celery broker and locks.")
    elasticsearch_url: str = Field("http://127.0.0.1:29200", description="Tenant indexes.")
    index_prefix: str = Field("crag-", description="Tenant index name = prefix + tenant_id.")

    # Models (any OpenAI-compatible endpoint; the default is infra/up's llama.cpp server)
    llm_base_url: str = "http://127.0.0.1:28080/v1"
    llm_model: str = Field(
        "qwen2.5-coder-1.5b-instruct",
        description="Model name at the endpoint; for the local server also which GGUF it "
        "serves (infra/local_models.py; `make test` uses smollm2-135m-instruct for speed).",
    )
    llm_api_key: SecretStr = SecretStr("not-needed")
    llm_timeout_s: float = Field(
        180.0,
        gt=0,
        description="Per-call timeout, seconds: a CPU model reads ~19 prompt tokens/s, so a "
        "1,500-token generator prompt on a busy 2-slot server needs minutes.",
    )
    llm_max_retries: int = Field(1, ge=0, description="SDK-level retries per call.")
    verifier_model: str | None = Field(None, description="Model for verification; default llm.")
    llm_fallbacks: list[ModelEndpoint] = Field(
        default_factory=list,
        description="Tried in order when a model is unreachable; JSON, e.g. "
        '[{"base_url": "https://…/v1", "model": "…", "api_key": "…"}].',
    )
    embeddings: str = Field(
        "minilm",
        description="The embedding model of hybrid-retrieval tenants: 'minilm' (local ONNX "
        "all-MiniLM-L6-v2), 'openai' (an endpoint) or 'none' (hybrid off). BM25 tenants "
        "never embed.",
    )
    embeddings_base_url: str | None = None
    embeddings_model: str = "text-embedding-3-small"
    embeddings_api_key: SecretStr = SecretStr("")

    # Web search (Tavily-compatible). Unset base URL = web search off.
    web_search_url: str | None = None
    web_search_api_key: SecretStr = SecretStr("")
    web_search_timeout_s: float = Field(10.0, gt=0)

    # Circuit breaker per model (shared through Redis)
    breaker_failures: int = Field(5, ge=1, description="Outages within the window that open it.")
    breaker_window_s: float = Field(60.0, gt=0, description="Window for counting outages, seconds.")
    breaker_cooldown_s: float = Field(30.0, gt=0, description="How long it stays open, seconds.")

    # Graph limits
    max_rewrites: int = Field(2, ge=0)
    max_generations: int = Field(2, ge=1)
    max_model_calls: int = Field(40, ge=1)
    max_thread_calls: int = Field(
        1000, ge=1, description="Model calls allowed over a whole thread."
    )
    retrieve_k: int = Field(4, ge=1, le=100, description="Chunks retrieved (and graded) a round.")
    min_relevant: int = Field(1, ge=1)
    upper_threshold: float = Field(
        0.7, ge=0, le=1, description="Grader score of a 'correct' round."
    )
    lower_threshold: float = Field(
        0.3, ge=0, le=1, description="Grader score below which a chunk is dropped."
    )
    web_results: int = Field(3, ge=1, le=20)
    context_window_tokens: int = Field(
        8192, ge=1024, description="Smallest context window in the model chain, tokens."
    )
    min_lexical_support: float = Field(
        0.6, ge=0, le=1, description="Least share of a claim's words its cited chunks must contain."
    )
    multi_hop: bool = Field(
        False,
        description="Multi-hop steps: compound questions searched part by part, and a "
        "claim its sources lack searched for before the answer is written again (ITER-RETGEN).",
    )
    recite_claims: bool = Field(
        False,
        description="A claim that fails its own citation but holds against another kept "
        "source cites that source instead (the verifier still judges it).",
    )
    hypothetical_rewrite: bool = Field(
        False,
        description="The first rewrite searches for the question beside a passage the model "
        "writes as its answer would read (HyDE); later rewrites write a new query.",
    )
    cross_check_k: int = Field(
        8,
        ge=0,
        le=50,
        description="Chunks the cross-check search fetches when the kept sources state a "
        "value the question asks for, to find a source that disagrees (0: off).",
    )
    judge_conflicts: bool = Field(
        False,
        description="Before a verified answer that states a value ships, ask the verifier "
        "model whether another page of the index gives another value (one more call when "
        "such a page is found).",
    )

    # Fleet
    queue: str = Field("crag.questions", description="Queue of question jobs.")
    delivery_queue: str = Field("crag.deliveries", description="Queue of webhook deliveries.")
    lock_ttl_s: float = Field(60.0, gt=0, description="Per-thread lock TTL; renewed while running.")
    thread_poll_s: float = Field(
        5.0,
        gt=0,
        description="A job waiting for its turn on a busy thread looks again after this many "
        "seconds (it is also woken as soon as the job before it ends).",
    )
    thread_drain_s: float = Field(
        2.0,
        ge=0,
        description="A worker that ends a job runs its thread's next waiting jobs itself while "
        "its task has run for less than this many seconds, then wakes the next one through "
        "the queue (0: always through the queue).",
    )
    visibility_timeout_s: int = Field(
        120,
        ge=10,
        description="A held job whose lease was not renewed for this long is redelivered "
        "(a lost worker host); live workers renew every 10 s, so it need not exceed a run.",
    )
    job_max_retries: int = Field(10, ge=0, description="Retries of a transiently failing job.")
    retry_backoff_s: float = Field(2.0, gt=0, description="Backoff factor for retries, seconds.")
    retry_backoff_max_s: float = Field(300.0, gt=0, description="Cap on one retry delay, seconds.")
    webhook_timeout_s: float = Field(10.0, gt=0)
    webhook_max_attempts: int = Field(5, ge=1)
    worker_concurrency: int = Field(2, ge=1)
    worker_start_timeout_s: float = Field(
        60.0,
        gt=0,
        description="How long a new pool process may take to start (it loads Presidio, "
        "spaCy, pools and the graph: 2 to 9 s here) before Celery gives up on it; Celery's own "
        "4 s left a killed process never replaced on a busy host.",
    )
    shutdown_grace_s: float = Field(
        25.0,
        ge=0,
        description="On SIGTERM, seconds running jobs get to finish before they are handed "
        "back to the queue; keep it below the orchestrator's grace period (30 s in k8s).",
    )
    job_deadline_s: float = Field(
        600.0, gt=0, description="Seconds from submission after which a job ends with the apology."
    )
    apology: str = Field(
        "Sorry, we could not prepare a verified answer in time. A person will follow up.",
        description="The answer text of an outcome that missed its deadline.",
    )

    # Checkpoints at rest (AES-256-GCM; see workers/runtime/checkpointing.py)
    checkpoint_encryption: bool = Field(
        True, description="Encrypt checkpoints; off only for throwaway local databases."
    )
    checkpoint_keys: dict[str, SecretStr] = Field(
        default_factory=dict,
        description='JSON {"<key id>": "<base64 of 32 bytes>", …}; old ids stay readable.',
    )
    checkpoint_key_id: str | None = Field(
        None, description="Key id new checkpoints are written under (default: the only one)."
    )
    checkpoint_key_file: Path | None = Field(
        None, description='JSON file {"current": "<id>", "keys": {…}}, instead of the above.'
    )

    retention_sweep_interval_s: float = Field(
        3600.0, description="How often `crag beat` runs the retention sweep, seconds."
    )

    # Operator console (crag console)
    console_token: SecretStr | None = Field(
        None,
        description="Bearer token of the operator console; unset: `crag console` makes one "
        "per start and prints it in the console's URL.",
    )

    # Telemetry
    otlp_endpoint: str | None = Field(
        None, description="OTLP/HTTP endpoint; unset: spans go nowhere (or to the console)."
    )
    trace_console: bool = Field(
        False,
        description="Print spans as JSON on stderr when no OTLP endpoint is set (debugging; "
        "it costs throughput, so it is off unless asked).",
    )
    service_name: str = "crag-fleet"
    trace_question: bool = Field(
        False,
        description="Debug: put the question on the job's span, redacted like a web query. "
        "Off: traces and logs carry no question text at all.",
    )

    @model_validator(mode="after")
    def _thresholds_in_order(self) -> Settings:
        if self.lower_threshold > self.upper_threshold:
            raise ValueError(
                f"CRAG_LOWER_THRESHOLD ({self.lower_threshold}) is above CRAG_UPPER_THRESHOLD "
                f"({self.upper_threshold}): a chunk would be dropped at a 'correct' score"
            )
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Return the process-wide settings, read once from the environment."""
    return Settings()
