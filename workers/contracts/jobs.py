"""The job contract (what upstream systems enqueue) and the outcome contract (what we deliver).

Both are pydantic models so a malformed job fails validation with errors that name the
offending fields; :func:`parse_job` turns that into a :class:`PermanentJobError`, which the
task boundary dead-letters with its reason.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, ValidationError

from workers.contracts.errors import PermanentJobError

TENANT_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
THREAD_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"


class JobOptions(BaseModel):
    """Per-job switches."""

    model_config = ConfigDict(extra="forbid")

    allow_web: bool = Field(True, description="False keeps the run inside the tenant's index.")
    multitask: Literal["enqueue", "reject"] = Field(
        "enqueue",
        description="When the thread is busy: wait for it (enqueue) or answer rejected_busy "
        "at once (reject), as the LangGraph Agent Server's double-texting options.",
    )
    deadline_s: float | None = Field(
        None,
        gt=0,
        le=86400,
        description="Seconds from submission to the outcome; default CRAG_JOB_DEADLINE_S.",
    )


class Job(BaseModel):
    """A question to answer (the message body on queue ``crag.questions``)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    job_id: str = Field(min_length=1, max_length=200, description="Idempotency key.")
    tenant_id: str = Field(pattern=TENANT_PATTERN)
    thread_id: str = Field(pattern=THREAD_PATTERN)
    question: str = Field(min_length=1, max_length=4000)
    webhook_url: HttpUrl | None = None
    progress_url: HttpUrl | None = Field(
        None,
        description="Receives the job's progress events as they happen, signed like the "
        "webhook (best effort; see workers.delivery.progress_push).",
    )
    options: JobOptions = Field(default_factory=JobOptions)
    metadata: dict[str, str] = Field(
        default_factory=dict,
        max_length=20,
        description="Producer's labels; 'subject_id' names the end user the job is about "
        "(used by `crag forget --subject`).",
    )
    submitted_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    signed_at: int | None = Field(None, description="Unix seconds (see workers.contracts.signing).")
    signature: str | None = Field(None, description="v1,<base64 HMAC-SHA256>.")

    @property
    def subject_id(self) -> str | None:
        """The end user the job is about, from ``metadata``, if the producer said."""
        return self.metadata.get("subject_id")

    @property
    def graph_thread_id(self) -> str:
        """The checkpointer's ``thread_id``: namespaced by tenant so threads never collide."""
        return f"{self.tenant_id}:{self.thread_id}"


def new_job(
    tenant_id: str,
    thread_id: str,
    question: str,
    *,
    webhook_url: str | None = None,
    progress_url: str | None = None,
    allow_web: bool = True,
    job_id: str | None = None,
    deadline_s: float | None = None,
    multitask: str = "enqueue",
    subject_id: str | None = None,
) -> Job:
    """Build and validate a job, generating a UUID job_id when none is given.

    Raises:
        PermanentJobError: A field is invalid (the message names it).
    """
    return parse_job(
        {
            "job_id": job_id or str(uuid.uuid4()),
            "tenant_id": tenant_id,
            "thread_id": thread_id,
            "question": question,
            "webhook_url": webhook_url,
            "progress_url": progress_url,
            "options": {
                "allow_web": allow_web,
                "deadline_s": deadline_s,
                "multitask": multitask,
            },
            "metadata": {"subject_id": subject_id} if subject_id else {},
        }
    )


def parse_job(body: Any) -> Job:
    """Validate a raw message body into a :class:`Job`.

    Raises:
        PermanentJobError: The body is not an object or a field is missing or invalid; the
            message lists each problem as ``field: error``.
    """
    if not isinstance(body, dict):
        raise PermanentJobError(f"job body must be a JSON object, got {type(body).__name__}")
    try:
        return Job.model_validate(body)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        raise PermanentJobError(
            f"invalid job: {problems}",
            job_id=_str_or_none(body.get("job_id")),
            tenant_id=_str_or_none(body.get("tenant_id")),
        ) from exc


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def webhook_id(tenant_id: str, job_id: str) -> str:
    """The Standard Webhooks ``webhook-id`` of a job's outcome: stable across re-deliveries."""
    return "msg_" + hashlib.sha256(f"{tenant_id}\0{job_id}".encode()).hexdigest()[:32]


class CitationOut(BaseModel):
    """One verified citation."""

    n: int
    id: str
    locator: str
    title: str
    source_type: Literal["index", "web"]


class OutcomeBody(BaseModel):
    """The outcome of a job: webhook body and stored row."""

    job_id: str
    tenant_id: str
    thread_id: str
    status: Literal["answered", "abstained", "failed"]
    answer: str = ""
    citations: list[CitationOut] = Field(default_factory=list)
    reason: str | None = None
    detail: str = ""
    route: str | None = None
    path: list[str] = Field(default_factory=list, description="Nodes the graph ran, in order.")
    queries_tried: list[str] = Field(default_factory=list)
    web_query: str | None = Field(None, description="The redacted query sent to web search.")
    conflict: dict[str, Any] | None = Field(
        None,
        description="Kept sources that disagreed on the fact asked for: subject, aspect, "
        "values (value -> locators), settled (trust, both or abstained), winner, detail.",
    )
    flagged_sources: list[dict[str, str]] = Field(
        default_factory=list,
        description="Passages withheld from retrieved sources as callouts aimed at automated "
        "readers: {id, locator, why, passage}.",
    )
    rewrites: int = 0
    generations: int = 0
    web_used: bool = False
    handoff: bool = Field(False, description="True when a person should take over.")
    resumed: bool = Field(False, description="The run resumed from a checkpoint after a crash.")
    model_failures: list[dict[str, str]] = Field(
        default_factory=list,
        description="Calls that failed ({kind, model, error}): fallback hops, bad replies.",
    )
    model_calls: int = 0
    calls_by_kind: dict[str, int] = Field(default_factory=dict)
    tokens_by_model: dict[str, dict[str, int]] = Field(default_factory=dict)
    tokens_by_kind: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="Per kind of call: prompt tokens (input), of them reused from the "
        "server's prompt cache (cached), and output tokens.",
    )
    prompt_tokens: int = Field(0, description="Prompt tokens of every call of the turn.")
    cached_prompt_tokens: int = Field(
        0, description="Of prompt_tokens, those the model server reused rather than read."
    )
    output_tokens: int = Field(0, description="Output tokens of every call of the turn.")
    latency_ms: int = 0
    trace_id: str | None = None
