"""The ``crag`` command line (Typer): ingest, ask, worker, db, tenants, dead letters, demo."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from workers.cli.data import forget, retention_app
from workers.cli.deliveries import app as deliveries_app
from workers.cli.errors import fail
from workers.cli.evaluate import evaluate
from workers.cli.tenants import app as tenants_app
from workers.cli.threads import app as threads_app
from workers.settings import Settings, get_settings

if TYPE_CHECKING:
    from workers.core.tenants import TenantKeys

app = typer.Typer(help="crag-fleet: grounded answers from private documents.", no_args_is_help=True)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(deliveries_app, name="deliveries")
app.add_typer(tenants_app, name="tenants")
app.add_typer(retention_app, name="retention")
app.add_typer(threads_app, name="thread")
app.command("forget")(forget)
app.command("eval")(evaluate)


def _sessions():  # type: ignore[no-untyped-def]
    from workers.db.engine import sessions_for

    return sessions_for(get_settings().database_url)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply Alembic migrations, create the checkpointer tables and the fencing trigger."""
    from alembic import command
    from workers.db import fencing
    from workers.runtime.resources import make_checkpointer

    command.upgrade(_alembic_config(), "head")
    saver, pool = make_checkpointer(get_settings().database_url, max_size=1)
    try:
        saver.setup()
        with pool.connection() as conn:
            fencing.install(conn)
    finally:
        pool.close()
    typer.echo("database is at head; checkpointer tables and fencing trigger ready")


@db_app.command("wait")
def db_wait(
    timeout: Annotated[float, typer.Option(help="Give up after this many seconds.")] = 600.0,
    every: Annotated[float, typer.Option(help="Seconds between looks.")] = 2.0,
) -> None:
    """Wait until the database schema is at head (a pod's wait-for-migrations step).

    Exits 0 once ``crag db upgrade`` has run to the newest migration; exits 1 after
    ``--timeout`` seconds, saying which revision the database is at and which is head.
    """
    import time

    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy.exc import OperationalError

    from workers.db.engine import make_engine

    heads = set(ScriptDirectory.from_config(_alembic_config()).get_heads())
    engine = make_engine(get_settings().database_url)
    deadline = time.monotonic() + timeout
    current: set[str] = set()
    problem = ""
    try:
        while True:
            try:
                with engine.connect() as conn:
                    current = set(MigrationContext.configure(conn).get_current_heads())
                problem = ""
            except OperationalError as exc:
                problem = f" (database unreachable: {str(exc).splitlines()[0]})"
            if current == heads:
                typer.echo(f"database is at head ({', '.join(sorted(heads))})")
                return
            if time.monotonic() >= deadline:
                at = ", ".join(sorted(current)) or "no revision"
                typer.secho(
                    f"error: the database is at {at}, head is {', '.join(sorted(heads))}"
                    f"{problem}; run `crag db upgrade` (the chart's migration Job does)",
                    fg="red",
                    err=True,
                )
                raise typer.Exit(1)
            time.sleep(every)
    finally:
        engine.dispose()


def _alembic_config() -> Any:
    """Alembic's configuration: ``alembic.ini`` at the repository (or image) root."""
    from alembic.config import Config

    return Config(str(Path(__file__).resolve().parents[2] / "alembic.ini"))


@contextmanager
def ingest_progress(embedding: bool) -> Iterator[Callable[[int, int, int], None]]:
    """Progress on stderr (files, chunks, time) for :func:`corpus.ingest_paths`.

    Yields its ``progress`` callback. On a terminal it draws a bar, removed when the block
    ends; otherwise (a CI log, a pipe) it writes a plain line at every tenth of the files.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    what = "embedding + indexing" if embedding else "indexing"
    if not sys.stderr.isatty():
        started, tenth_shown, last, printed = time.monotonic(), -1, "", ""

        def line(done: int, total: int, chunks: int) -> None:
            nonlocal tenth_shown, last
            last = f"  {what}: {done}/{total} files, {chunks} chunks"
            if 10 * done // max(total, 1) > tenth_shown:
                tenth_shown = 10 * done // max(total, 1)
                show()

        def show() -> None:
            nonlocal printed
            printed = last
            print(f"{last}, {time.monotonic() - started:.0f}s", file=sys.stderr, flush=True)

        yield line
        if last != printed:
            show()  # the final count (chunks are written after the last file is read)
        return
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), "files",
               "{task.fields[chunks]} chunks", TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(what, chunks=0)
        yield lambda done, total, chunks: bar.update(
            task, completed=done, total=total, chunks=chunks
        )


def tenant_keys(
    tenant_id: str,
    secret: str | None = None,
    allow_hosts: Sequence[str] = (),
    retrieval: str | None = None,
) -> TenantKeys:
    """Register ``tenant_id`` if needed, in the database of the settings; returns its keys.

    ``allow_hosts`` are added to the tenant's webhook allowlist (hosts that may receive
    outcomes over http or on non-public addresses, e.g. ``127.0.0.1`` for local work);
    ``retrieval`` sets the tenant's retrieval (``bm25`` or ``hybrid``) when given.

    Raises:
        ValueError: ``secret`` is malformed, or differs from the registered tenant's.
    """
    from workers.core import tenants

    return tenants.ensure_tenant(
        _sessions(), tenant_id, webhook_secret=secret, allow_hosts=allow_hosts, retrieval=retrieval
    )


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.html .md .txt .pdf).")],
    tenant: Annotated[str, typer.Option(help="Tenant whose index receives the chunks.")],
) -> None:
    """Chunk documents into a registered tenant's own index (re-ingesting a file replaces it).

    A hybrid-retrieval tenant's chunks are embedded too (``CRAG_EMBEDDINGS``); a progress
    bar shows files and chunks, and the report the embedding cost.
    """
    from corpus import IngestError, ingest_paths, make_es_client
    from workers.db import repository as repo
    from workers.runtime.models import make_embeddings_for

    s = get_settings()
    with _sessions()() as session:
        row = repo.get_tenant(session, tenant)
        if row is None:
            raise fail(f"unknown tenant {tenant!r} (register it with `crag tenants create`)")
        hybrid = row.retrieval == "hybrid"
    try:
        embeddings = None
        if hybrid:
            embeddings = make_embeddings_for(s)
            if embeddings is None:
                raise fail(
                    f"tenant {tenant!r} uses hybrid retrieval but CRAG_EMBEDDINGS=none: set "
                    "it to minilm, or `crag tenants update --retrieval bm25`"
                )
        with ingest_progress(hybrid) as progress:
            report = ingest_paths(
                make_es_client(s.elasticsearch_url),
                tenant,
                paths,
                index_prefix=s.index_prefix,
                embeddings=embeddings,
                progress=progress,
            )
    except (IngestError, ValueError, ImportError) as exc:
        raise fail(str(exc)) from exc
    typer.echo(report.describe())
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def ask(
    question: str,
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    thread: Annotated[str, typer.Option(help="Conversation thread id.")],
    webhook: Annotated[str | None, typer.Option(help="Webhook URL for the outcome.")] = None,
    progress_url: Annotated[
        str | None, typer.Option(help="URL that receives the progress events, signed.")
    ] = None,
    job_id: Annotated[str | None, typer.Option(help="Idempotency key (default: a UUID).")] = None,
    no_web: Annotated[bool, typer.Option("--no-web", help="Keep the run in the index.")] = False,
    multitask: Annotated[
        str, typer.Option(help="If the thread is busy: enqueue (wait) or reject.")
    ] = "enqueue",
    deadline: Annotated[
        float | None, typer.Option(min=1, help="Seconds to an outcome (default from settings).")
    ] = None,
    subject: Annotated[
        str | None, typer.Option(help="End-user id the question is about (for `crag forget`).")
    ] = None,
    wait: Annotated[bool, typer.Option(help="Wait for the outcome and print it.")] = False,
    follow: Annotated[
        bool, typer.Option(help="Print the job's progress events as they happen, to its end.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="With --follow: one JSON event per line (NDJSON).")
    ] = False,
    timeout: Annotated[
        float, typer.Option(min=1, help="Seconds to wait with --wait or --follow.")
    ] = 600.0,
) -> None:
    """Enqueue a question, signed with the tenant's submission key.

    Prints the job id; with --follow, the live trajectory (route, per-chunk grades, rewrites,
    web hop, verdicts, decision) ending with the outcome; with --wait, the outcome JSON.
    """
    from kombu.exceptions import OperationalError

    from workers.celery.app import app as celery_app
    from workers.client.intake import submit_question
    from workers.client.waiting import wait_for_outcome
    from workers.contracts.errors import PermanentJobError
    from workers.db import repository as repo

    s = get_settings()
    with _sessions()() as session:
        row = repo.get_tenant(session, tenant)
        if row is None:
            raise fail(f"unknown tenant {tenant!r} (register it with `crag tenants create`)")
        if row.status != "active":
            raise fail(f"tenant {tenant!r} is {row.status}")
        key = row.submission_key
        used = repo.get_job(session, tenant, job_id) if job_id else None
        if used is not None and (used.thread_id, used.question) != (thread, question.strip()):
            raise fail(
                f"job id {job_id!r} was already used for another question or thread "
                f"(thread {used.thread_id!r}); use a new job id for a new question"
            )
    try:
        job = submit_question(
            celery_app,
            s.queue,
            tenant,
            thread,
            question,
            webhook_url=webhook,
            progress_url=progress_url,
            allow_web=not no_web,
            job_id=job_id,
            deadline_s=deadline,
            multitask=multitask,
            subject_id=subject,
            key=key,
        )
    except PermanentJobError as exc:
        raise fail(str(exc)) from exc
    except OperationalError as exc:
        raise fail(f"cannot reach the queue at {s.redis_url}: {exc}") from exc
    typer.echo(f"job {job.job_id} queued on {s.queue}", err=wait or follow)
    if follow:
        _follow(tenant, job.job_id, timeout, as_json)
    if wait:
        outcome = wait_for_outcome(s, tenant, job.job_id, timeout)
        if outcome is None:
            raise fail(
                f"no outcome for job {job.job_id} within {timeout:.0f}s "
                "(is a worker running? `crag dead-letters` lists rejected jobs)"
            )
        typer.echo(json.dumps(outcome, indent=2))
        if outcome.get("status") == "dead_letter":
            raise typer.Exit(1)


@app.command()
def watch(
    job_id: Annotated[str, typer.Argument(help="The job to follow.")],
    tenant: Annotated[str, typer.Option(help="The job's tenant.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON event per line.")] = False,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds to follow.")] = 600.0,
) -> None:
    """Attach to a running or finished job and print its progress events to its end.

    Events are kept an hour after a job's last one, so a late reader sees the whole run.
    Exits 1 on a dead letter, 2 when no end came within --timeout.
    """
    _follow(tenant, job_id, timeout, as_json)


def _follow(tenant: str, job_id: str, timeout: float, as_json: bool) -> None:
    from redis import Redis
    from redis.exceptions import RedisError

    from workers.cli.watching import follow
    from workers.core.progress import ProgressLocked
    from workers.runtime.checkpointing import CheckpointKeyError, key_ring_from_settings

    s = get_settings()
    try:
        cipher = key_ring_from_settings(s)
    except CheckpointKeyError as exc:
        raise fail(str(exc)) from exc
    redis = Redis.from_url(s.redis_url)
    try:
        final = follow(
            redis,
            tenant,
            job_id,
            timeout_s=timeout,
            as_json=as_json,
            write=typer.echo,
            cipher=cipher,
        )
    except RedisError as exc:
        raise fail(f"cannot read progress from Redis at {s.redis_url}: {exc}") from exc
    except ProgressLocked as exc:
        raise fail(str(exc)) from exc
    finally:
        redis.close()
    if final is None:
        raise fail(
            f"job {job_id} of tenant {tenant!r} did not end within {timeout:.0f}s "
            "(is a worker running? events are kept for an hour after a job's last one)"
        )
    if final["kind"] == "dead_letter":
        raise typer.Exit(1)


@app.command()
def worker(
    concurrency: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "INFO",
    hostname: Annotated[str | None, typer.Option(help="Celery node name.")] = None,
) -> None:
    """Run a Celery worker on the questions and deliveries queues (CRAG_QUEUE, …).

    SIGTERM (what Kubernetes sends) starts Celery's soft shutdown: running jobs get
    CRAG_SHUTDOWN_GRACE_S seconds to finish; any still running then are handed back to the
    queue (late acknowledgement) and resume from their checkpoint on another worker.

    Configuration a job cannot run without (the checkpoint key) is checked here, before
    Celery starts: a missing key exits 2 naming the setting, instead of every pool process
    failing at start-up while jobs wait.
    """
    from workers.runtime.checkpointing import CheckpointKeyError, serde_from_settings

    s = get_settings()
    try:
        serde_from_settings(s)
    except CheckpointKeyError as exc:
        raise fail(str(exc)) from exc
    argv = celery_worker_argv(s, concurrency or s.worker_concurrency, loglevel, hostname)
    # billiard reads this at import: SIGTERM then means "soft shutdown, then hand back".
    env = {"REMAP_SIGTERM": "SIGQUIT", **os.environ}
    os.execve(sys.executable, argv, env)


def celery_worker_argv(
    s: Settings,
    concurrency: int,
    loglevel: str,
    hostname: str | None = None,
    app_module: str = "workers.celery.app",
) -> list[str]:
    """The ``celery worker`` command line of ``crag worker`` (``app_module``: the Celery app)."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        app_module,
        "worker",
        f"--queues={s.queue},{s.delivery_queue}",
        f"--concurrency={concurrency}",
        f"--loglevel={loglevel}",
        "--without-gossip",
        "--without-mingle",
        *([f"--hostname={hostname}"] if hostname else []),
    ]


@app.command()
def flagged(
    tenant: Annotated[str, typer.Option(help="Tenant whose index is listed.")],
    limit: Annotated[int, typer.Option(min=1, help="Most chunks shown.")] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """Chunks flagged at ingest for review: callouts aimed at automated readers, and why.

    Those passages are withheld from every prompt at retrieval; the chunk stays citable.
    """
    from corpus import IngestError, make_es_client
    from corpus.flagged import flagged_chunks

    s = get_settings()
    try:
        chunks = flagged_chunks(
            make_es_client(s.elasticsearch_url), tenant, index_prefix=s.index_prefix, limit=limit
        )
    except (IngestError, ValueError) as exc:
        raise fail(str(exc)) from exc
    for c in chunks:
        for why, passage in zip(c.flags, c.passages, strict=False):
            row = {"locator": c.locator, "position": c.position, "chunk_id": c.chunk_id}
            if as_json:
                typer.echo(json.dumps(row | {"why": why, "passage": passage}, ensure_ascii=False))
            else:
                typer.echo(f"{c.locator} #{c.position}: {why}\n    {passage}")
    if not chunks and not as_json:
        typer.echo(f"no flagged chunks in tenant {tenant!r}'s index")


egress_app = typer.Typer(help="What left the fleet for web search.", no_args_is_help=True)
app.add_typer(egress_app, name="egress")


@egress_app.command("list")
def egress_list(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    job: Annotated[str | None, typer.Option(help="Only this job.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="Most rows shown.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """Queries sent to web search, newest first: the redacted text exactly as it left."""
    from workers.db import repository as repo

    with _sessions()() as session:
        for e in repo.list_egress(session, tenant, job, limit):
            row = {
                "at": e.created_at.isoformat(),
                "tenant_id": e.tenant_id,
                "job_id": e.job_id,
                "thread_id": e.thread_id,
                "provider": e.provider,
                "query": e.query,
            }
            typer.echo(
                json.dumps(row, ensure_ascii=False)
                if as_json
                else f"{e.created_at:%Y-%m-%d %H:%M:%S} {e.tenant_id} job={e.job_id} "
                f"{e.provider}: {e.query}"
            )


@app.command()
def beat(
    schedule: Annotated[
        str, typer.Option(help="Where beat keeps its schedule state (must be writable).")
    ] = "/tmp/crag-beat-schedule",
) -> None:
    """Run Celery beat: schedules the retention sweep (run exactly one per fleet)."""
    argv = [sys.executable, "-m", "celery", "-A", "workers.celery.app", "beat", "-s", schedule]
    os.execv(sys.executable, argv)


@app.command("dead-letters")
def dead_letters(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="Most rows shown.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """List dead letters (jobs and deliveries given up on), newest first, with reasons."""
    from workers.db import repository as repo

    with _sessions()() as session:
        for d in repo.list_dead_letters(session, tenant, limit):
            row = {
                "id": d.id,
                "kind": d.kind,
                "tenant_id": d.tenant_id,
                "job_id": d.job_id,
                "reason": d.reason,
                "at": d.created_at.isoformat(),
            }
            if as_json:
                row["payload"] = d.payload  # the message or job as it was refused
            typer.echo(
                json.dumps(row)
                if as_json
                else f"#{d.id} {d.created_at:%H:%M:%S} {d.kind} tenant={d.tenant_id} "
                f"job={d.job_id}: {d.reason}"
            )


@app.command()
def outcome(
    job_id: str,
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
) -> None:
    """Print a job's stored outcome."""
    from workers.db import repository as repo

    with _sessions()() as session:
        record = repo.get_outcome(session, tenant, job_id)
        if record is None:
            raise fail(f"no outcome for job {job_id} of tenant {tenant}")
        typer.echo(json.dumps(record.body, indent=2))


@app.command()
def console(
    host: Annotated[str, typer.Option(help="Address to listen on (keep it loopback).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8765,
) -> None:
    """Serve the operator console: jobs, a job's live timeline, dead letters, deliveries, ask.

    Every request needs the operator token: CRAG_CONSOLE_TOKEN, or one made for this run
    and printed in the URL to open.
    """
    import secrets

    import uvicorn

    from workers.console.serve import console_app

    s = get_settings()
    if host not in ("127.0.0.1", "::1", "localhost"):
        typer.secho(
            f"warning: serving on {host}; the console shows questions and answers, put it "
            "behind TLS and keep the token secret",
            err=True,
        )
    token = s.console_token.get_secret_value() if s.console_token else secrets.token_urlsafe(24)
    shown = "<CRAG_CONSOLE_TOKEN>" if s.console_token else token
    typer.echo(f"console: http://{host}:{port}/?token={shown}", err=True)
    try:
        served = console_app(s, token)
    except ValueError as exc:  # a short token, or no checkpoint key to read progress with
        raise fail(str(exc)) from exc
    uvicorn.run(served, host=host, port=port, log_level="warning")


@app.command()
def demo(
    corpus: Annotated[Path, typer.Option(help="Demo corpus folder.")] = Path(
        "/usr/share/doc/postgresql-doc-15/html"
    ),
    tenant: Annotated[str, typer.Option(help="Demo tenant id.")] = "pgdocs",
    reingest: Annotated[bool, typer.Option(help="Re-ingest even if the index has chunks.")] = False,
) -> None:
    """Run the main job on the PostgreSQL manual and print each outcome.

    Ingests the manual, asks the demo questions through Redis → worker → Elasticsearch →
    checkpointer → webhook.
    """
    from workers.cli.demo import run_demo

    raise typer.Exit(run_demo(get_settings(), corpus, tenant, reingest))


if __name__ == "__main__":
    app()
