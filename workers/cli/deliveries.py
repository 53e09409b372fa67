"""``crag deliveries``: inspect webhook deliveries and send an outcome again."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from workers.settings import get_settings

app = typer.Typer(help="Webhook deliveries: list, show, redeliver.", no_args_is_help=True)


def _sessions():  # type: ignore[no-untyped-def]
    from workers.db.engine import sessions_for

    return sessions_for(get_settings().database_url)


@app.command("list")
def list_deliveries(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    status: Annotated[
        str | None, typer.Option(help="pending, delivered, dead or none (no webhook).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="Most rows shown.")] = 50,
) -> None:
    """Outcomes and where their delivery stands, newest first."""
    if status not in (None, "pending", "delivered", "dead", "none"):
        typer.secho(
            f"error: unknown status {status!r}: use pending, delivered, dead or none", err=True
        )
        raise typer.Exit(2)
    from workers.db import repository as repo

    with _sessions()() as session:
        for o in repo.list_outcomes(session, tenant, status, limit):
            attempts = repo.count_attempts(session, o.tenant_id, o.job_id)
            typer.echo(
                f"{o.created_at:%Y-%m-%d %H:%M:%S} {o.tenant_id} {o.job_id} "
                f"{o.status} delivery={o.delivery_status} attempts={attempts}"
            )


@app.command()
def show(job_id: str, tenant: Annotated[str, typer.Option(help="Tenant id.")]) -> None:
    """A job's delivery: its webhook-id, status and every attempt (status, latency, reply)."""
    from workers.db import repository as repo

    with _sessions()() as session:
        outcome = repo.get_outcome(session, tenant, job_id)
        if outcome is None:
            typer.secho(f"error: no outcome for job {job_id} of tenant {tenant}", err=True)
            raise typer.Exit(2)
        attempts = [
            {
                "attempt": a.attempt,
                "at": a.created_at.isoformat(),
                "url": a.url,
                "http_status": a.http_status,
                "latency_ms": a.latency_ms,
                "error": a.error,
                "response_body": a.response_body,
            }
            for a in repo.list_attempts(session, tenant, job_id)
        ]
        typer.echo(
            json.dumps(
                {
                    "job_id": job_id,
                    "webhook_id": outcome.webhook_id,
                    "delivery_status": outcome.delivery_status,
                    "attempts": attempts,
                },
                indent=2,
            )
        )


@app.command()
def redeliver(
    job_id: str,
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    queue: Annotated[
        str | None, typer.Option(help="Delivery queue (default CRAG_DELIVERY_QUEUE).")
    ] = None,
) -> None:
    """Send a stored outcome to its webhook again (same webhook-id), e.g. after a dead letter."""
    from kombu.exceptions import OperationalError

    from workers.celery.app import (
        app as celery_app,  # the configured app (Redis broker), not a default
    )
    from workers.contracts.names import DELIVER_TASK
    from workers.delivery.machine import NotDeliverable, reopen

    try:
        webhook_id = reopen(_sessions(), tenant, job_id)
    except NotDeliverable as exc:
        typer.secho(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    # After the commit: the delivery task posts only a pending outcome.
    try:
        celery_app.send_task(
            DELIVER_TASK, args=[tenant, job_id], queue=queue or get_settings().delivery_queue
        )
    except OperationalError as exc:
        typer.secho(f"error: cannot reach the queue ({exc}); run the command again", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"delivery of job {job_id} queued again (webhook-id {webhook_id})")
