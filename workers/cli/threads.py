"""``crag thread``: a thread's checkpoints, and a replay or fork of its run into a new thread."""

from __future__ import annotations

import json
import threading
from typing import Annotated

import typer

from workers.cli.errors import fail
from workers.settings import get_settings

app = typer.Typer(
    help="A thread's checkpoints: history, replay or fork into a new thread.",
    no_args_is_help=True,
)


@app.command()
def history(
    tenant: Annotated[str, typer.Argument(help="The thread's tenant.")],
    thread: Annotated[str, typer.Argument(help="The thread.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """List the thread's checkpoints, oldest first: step, time, who wrote it, next, changes."""
    from dataclasses import asdict

    from pipeline.graph import build_graph
    from workers.core.replay import ReplayError
    from workers.core.replay import history as read_history
    from workers.db.engine import make_engine, make_sessionmaker
    from workers.runtime.checkpointing import serde_from_settings
    from workers.runtime.resources import make_checkpointer

    s = get_settings()
    saver, pool = make_checkpointer(s.database_url, max_size=1, serde=serde_from_settings(s))
    engine = make_engine(s.database_url, pool_size=1)
    try:
        rows = read_history(make_sessionmaker(engine), build_graph(saver), tenant, thread)
    except ReplayError as exc:
        raise fail(str(exc)) from exc
    finally:
        pool.close()
        engine.dispose()
    for row in rows:
        if as_json:
            typer.echo(json.dumps(asdict(row)))
            continue
        nxt = ",".join(sorted(set(row.next))) or "(end of turn)"
        wrote = ",".join(sorted(set(row.wrote))) or row.source
        typer.echo(
            f"{row.checkpoint_id}  step {row.step:>3}  {row.created_at[11:19]}  "
            f"by {wrote:<16} next {nxt:<16} changed {', '.join(row.changed) or '-'}"
        )


@app.command()
def replay(
    tenant: Annotated[str, typer.Argument(help="The thread's tenant.")],
    thread: Annotated[str, typer.Argument(help="The thread to replay (it is not changed).")],
    checkpoint: Annotated[
        str, typer.Option("--from", help="Checkpoint id (`crag thread history` lists them).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Events and outcome as NDJSON.")] = False,
) -> None:
    """Re-run the thread from a past checkpoint in a new thread; print its run and outcome."""
    _run_copy(tenant, thread, checkpoint, {}, as_json)


@app.command()
def fork(
    tenant: Annotated[str, typer.Argument(help="The thread's tenant.")],
    thread: Annotated[str, typer.Argument(help="The thread to fork (it is not changed).")],
    checkpoint: Annotated[
        str, typer.Option("--from", help="Checkpoint id (`crag thread history` lists them).")
    ],
    assignments: Annotated[
        list[str],
        typer.Option("--set", help="key=value of a state field (JSON or text); repeatable."),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Events and outcome as NDJSON.")] = False,
) -> None:
    """Run on from a past checkpoint with changed state (e.g. --set query=...) in a new thread."""
    pairs: dict[str, str] = {}
    for item in assignments:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise fail(f"--set {item!r}: expected key=value, e.g. --set query='vacuum cost'")
        pairs[key.strip()] = value
    _run_copy(tenant, thread, checkpoint, pairs, as_json)


def _run_copy(
    tenant: str, thread: str, checkpoint: str, pairs: dict[str, str], as_json: bool
) -> None:
    from workers.core.context import context_of
    from workers.core.progress import read_events
    from workers.core.replay import ReplayError, state_changes
    from workers.core.replay import replay as run_replay
    from workers.core.timeline import event_line
    from workers.runtime.resources import get_resources

    try:
        changes = state_changes(pairs)
    except ReplayError as exc:
        raise fail(str(exc)) from exc
    ctx = context_of(get_resources(get_settings()))
    started = threading.Event()
    done = threading.Event()
    job: list[str] = []

    def tail() -> None:
        """The copy's progress events as they happen, worded as `crag watch` words them."""
        started.wait()
        after, first_at = "0-0", None
        while True:
            events = read_events(ctx.redis, tenant, job[0], after, 300, ctx.cipher) if job else []
            for event in events:
                after, first_at = event["id"], first_at or event["at"]
                typer.echo(json.dumps(event) if as_json else event_line(event, first_at))
            if done.is_set() and not events:
                return

    def on_start(job_id: str) -> None:
        job.append(job_id)
        started.set()

    watcher = threading.Thread(target=tail, daemon=True)
    watcher.start()
    try:
        result = run_replay(ctx, tenant, thread, checkpoint, changes, on_start=on_start)
    except ReplayError as exc:
        raise fail(str(exc)) from exc
    finally:
        done.set()
        started.set()
        watcher.join(timeout=10)
    body = result.outcome.model_dump(mode="json")
    if as_json:
        typer.echo(json.dumps({"kind": "outcome", "thread_id": result.thread_id, "data": body}))
    else:
        typer.echo(f"new thread {result.thread_id} (job {result.job_id}); outcome:")
        typer.echo(json.dumps(body, indent=2))
