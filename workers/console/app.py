"""The console's web app: pages, the live timeline over server-sent events, and two actions.

=========================================  =================================================
``GET /``                                  recent jobs (``?tenant=``): status, reason, route,
                                           latency, calls, tokens
``GET /jobs/{tenant}/{job}``               a job: its live timeline, outcome, citations,
                                           usage, trace id, delivery attempts, dead letters
``GET /jobs/{tenant}/{job}/events``        the job's progress events as ``text/event-stream``
                                           (each ``data`` is the event of
                                           :func:`workers.core.progress.read_events` plus
                                           ``line``, the same words ``crag watch`` prints);
                                           resumes after ``Last-Event-ID``; ends after the
                                           job's final event
``POST /jobs/{tenant}/{job}/redeliver``    send a stored outcome to its webhook again
``GET /dead-letters``, ``GET /deliveries``  what was given up on; where deliveries stand
``GET|POST /ask``                          ask a question for a tenant (a signed job)
``GET /api/jobs``, ``/api/jobs/{t}/{j}``   the same as JSON
=========================================  =================================================

Every request needs the operator token (:mod:`workers.console.auth`).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from celery import Celery
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from kombu.exceptions import OperationalError
from langgraph.checkpoint.serde.base import CipherProtocol
from redis import Redis
from redis.exceptions import RedisError
from sqlalchemy.orm import Session, sessionmaker

from workers.client.intake import submit_question
from workers.console import views
from workers.console.auth import gate
from workers.contracts.errors import PermanentJobError
from workers.contracts.line import line_key
from workers.contracts.names import DELIVER_TASK
from workers.core.events import FINAL_KINDS
from workers.core.progress import ProgressLocked, first_event_at, progress_key, read_events
from workers.core.timeline import event_line
from workers.db import repository as repo
from workers.delivery.machine import NotDeliverable, reopen
from workers.settings import Settings

log = logging.getLogger(__name__)

HERE = Path(__file__).parent

STREAM_MAX_S = 900.0
"""Longest a live timeline stays open, seconds (the browser reconnects after it)."""


@dataclass(frozen=True)
class ConsoleContext:
    """What the console reads and acts through.

    Attributes:
        settings: Queues (questions, deliveries) and the fleet's other settings.
        sessions: Read transactions, and the redeliver's one write.
        redis: The jobs' progress streams.
        producer: A Celery app that sends the ask form's jobs and the redeliver's task.
        token: The operator token every request must carry.
        cipher: The checkpoint keys the progress payloads are encrypted under.
    """

    settings: Settings
    sessions: sessionmaker[Session]
    redis: Redis
    producer: Celery
    token: str
    cipher: CipherProtocol | None = None


def create_app(ctx: ConsoleContext) -> FastAPI:
    """The console app over ``ctx`` (serve it with uvicorn on 127.0.0.1)."""
    app = FastAPI(title="crag-fleet console", docs_url=None, redoc_url=None, openapi_url=None)
    templates = Jinja2Templates(directory=HERE / "templates")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.middleware("http")
    async def operator_token(request: Request, call_next: Any) -> Any:
        refused = gate(request, ctx.token)
        return refused if refused is not None else await call_next(request)

    def page(request: Request, name: str, code: int = 200, **values: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, values, status_code=code)

    def problem(request: Request, code: int, message: str) -> HTMLResponse:
        return page(request, "error.html", code, status_code=code, message=message)

    @app.get("/", response_class=HTMLResponse)
    def jobs(request: Request, tenant: str | None = None) -> HTMLResponse:
        with ctx.sessions() as session:
            rows = views.recent_jobs(session, tenant or None)
            tenants = [t.tenant_id for t in repo.list_tenants(session)]
        return page(request, "jobs.html", rows=rows, tenant=tenant, tenants=tenants)

    @app.get("/api/jobs")
    def jobs_json(tenant: str | None = None, limit: int = 50) -> JSONResponse:
        with ctx.sessions() as session:
            rows = views.recent_jobs(session, tenant or None, min(max(limit, 1), 500))
        return JSONResponse([_jsonable(asdict(r)) for r in rows])

    def in_line(tenant: str, job_id: str, thread: str | None) -> bool:
        """Whether a job not registered yet is on the queue (in its thread's line)."""
        return bool(thread) and ctx.redis.zscore(line_key(tenant, thread or ""), job_id) is not None

    @app.get("/jobs/{tenant}/{job_id}", response_class=HTMLResponse)
    def job(
        request: Request,
        tenant: str,
        job_id: str,
        note: str | None = None,
        thread: str | None = None,
    ) -> HTMLResponse:
        with ctx.sessions() as session:
            shown = views.job_page(session, tenant, job_id)
        if shown is None and in_line(tenant, job_id, thread):
            shown = views.queued_page(tenant, job_id, thread or "")
        if shown is None:
            return problem(request, 404, _unknown_job(tenant, job_id))
        return page(request, "job.html", job=shown, note=note, thread=thread)

    @app.get("/api/jobs/{tenant}/{job_id}")
    def job_json(tenant: str, job_id: str) -> JSONResponse:
        with ctx.sessions() as session:
            shown = views.job_page(session, tenant, job_id)
        if shown is None:
            return JSONResponse({"error": _unknown_job(tenant, job_id)}, status_code=404)
        events = read_events(ctx.redis, tenant, job_id, cipher=ctx.cipher)
        return JSONResponse(_jsonable(asdict(shown) | {"events": events}))

    @app.get("/jobs/{tenant}/{job_id}/events")
    def job_events(request: Request, tenant: str, job_id: str, thread: str | None = None) -> Any:
        with ctx.sessions() as session:
            known = repo.get_job(session, tenant, job_id) is not None
            ended = known and repo.has_ended(session, tenant, job_id)
        if not known and not in_line(tenant, job_id, thread):
            return JSONResponse({"error": _unknown_job(tenant, job_id)}, status_code=404)
        after = request.headers.get("last-event-id") or "0-0"
        expired = ended and not ctx.redis.exists(progress_key(tenant, job_id))
        return StreamingResponse(
            _expired() if expired else _event_stream(ctx, tenant, job_id, after),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    @app.post("/jobs/{tenant}/{job_id}/redeliver")
    def redeliver(request: Request, tenant: str, job_id: str) -> Any:
        try:
            webhook_id = reopen(ctx.sessions, tenant, job_id)
        except NotDeliverable as exc:
            return problem(request, 409, str(exc))
        try:  # after the commit: the delivery task posts only a pending outcome
            ctx.producer.send_task(
                DELIVER_TASK, args=[tenant, job_id], queue=ctx.settings.delivery_queue
            )
        except OperationalError as exc:
            return problem(request, 503, f"cannot reach the queue ({exc}); try again")
        note = quote(f"delivery queued again (webhook-id {webhook_id})")
        return RedirectResponse(f"/jobs/{quote(tenant)}/{quote(job_id)}?note={note}", 303)

    @app.get("/dead-letters", response_class=HTMLResponse)
    def dead_letters(request: Request, tenant: str | None = None) -> HTMLResponse:
        with ctx.sessions() as session:
            rows = views.dead_letters(session, tenant or None)
        return page(request, "dead_letters.html", rows=rows, tenant=tenant)

    @app.get("/deliveries", response_class=HTMLResponse)
    def deliveries(
        request: Request, tenant: str | None = None, status: str | None = None
    ) -> HTMLResponse:
        if status not in (None, "", "pending", "delivered", "dead", "none"):
            return problem(
                request,
                400,
                f"unknown delivery status {status!r}: use pending, delivered, dead or none",
            )
        with ctx.sessions() as session:
            rows = views.deliveries(session, tenant or None, status or None)
        return page(request, "deliveries.html", rows=rows, tenant=tenant, status=status)

    @app.get("/ask", response_class=HTMLResponse)
    def ask_form(request: Request, tenant: str | None = None) -> HTMLResponse:
        with ctx.sessions() as session:
            tenants = [t.tenant_id for t in repo.list_tenants(session) if t.status == "active"]
        thread = f"console-{uuid.uuid4().hex[:8]}"
        return page(request, "ask.html", tenants=tenants, tenant=tenant, thread=thread)

    @app.post("/ask")
    async def ask(request: Request) -> Any:
        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
        tenant, thread = form.get("tenant", "").strip(), form.get("thread", "").strip()
        question = form.get("question", "").strip()
        if not (tenant and thread and question):
            missing = [k for k in ("tenant", "thread", "question") if not form.get(k, "").strip()]
            return problem(request, 400, f"the form is missing: {', '.join(missing)}")
        with ctx.sessions() as session:
            row = repo.get_tenant(session, tenant)
            if row is None or row.status != "active":
                state = "not registered" if row is None else row.status
                return problem(request, 400, f"tenant {tenant!r} is {state}; no job was queued")
            key = row.submission_key
        try:
            queued = submit_question(
                ctx.producer,
                ctx.settings.queue,
                tenant,
                thread,
                question,
                key=key,
                allow_web=form.get("allow_web") == "on",
            )
        except PermanentJobError as exc:
            return problem(request, 400, str(exc))
        except OperationalError as exc:
            return problem(request, 503, f"cannot reach the queue ({exc}); try again")
        where = f"/jobs/{quote(tenant)}/{quote(queued.job_id)}?thread={quote(thread)}"
        return RedirectResponse(where, 303)

    return app


def _event_stream(ctx: ConsoleContext, tenant: str, job_id: str, after: str) -> Iterator[str]:
    """Server-sent events of a job's stream after ``after``, to its final event.

    Each event's SSE id is its stream id, so a reconnecting browser resumes where it left
    (``Last-Event-ID``); a comment every second keeps the connection and notices a reader
    that left.
    """
    deadline = time.monotonic() + STREAM_MAX_S
    started_at: float | None = None
    yield "retry: 2000\n\n"
    while time.monotonic() < deadline:
        try:
            started_at = started_at or first_event_at(ctx.redis, tenant, job_id)
            events = read_events(ctx.redis, tenant, job_id, after, 1000, ctx.cipher)
        except RedisError as exc:
            log.warning("console: progress of %s/%s unreadable: %s", tenant, job_id, exc)
            yield f"event: problem\ndata: {json.dumps(f'Redis is unreachable: {exc}')}\n\n"
            time.sleep(1)
            continue
        except ProgressLocked as exc:
            yield f"event: problem\ndata: {json.dumps(str(exc))}\n\n"
            return
        if not events:
            yield ": waiting\n\n"
            continue
        for event in events:
            after = event["id"]
            shown = event | {"line": event_line(event, started_at or event["at"])}
            yield f"id: {after}\nevent: progress\ndata: {json.dumps(shown, default=str)}\n\n"
            if event["kind"] in FINAL_KINDS:
                yield "event: end\ndata: {}\n\n"
                return


def _expired() -> Iterator[str]:
    """The stream of a job that ended so long ago that its events are gone."""
    yield 'event: end\ndata: {"expired": true}\n\n'


def _unknown_job(tenant: str, job_id: str) -> str:
    return (
        f"no job {job_id!r} for tenant {tenant!r}: check the id and the tenant (a job is "
        "only shown under its own tenant), or it was deleted by retention or `crag forget`"
    )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))
