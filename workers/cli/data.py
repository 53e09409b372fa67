"""``crag retention sweep`` and ``crag forget``: deleting data (:mod:`workers.core.retention`)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from workers.cli.errors import fail
from workers.settings import get_settings

retention_app = typer.Typer(help="Delete data older than each tenant's retention.")


@retention_app.command("sweep")
def sweep(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
) -> None:
    """Delete threads idle past their tenant's retention, and old records; prints counts."""
    from redis import Redis

    from workers.core import retention
    from workers.db import repository as repo
    from workers.db.engine import sessions_for, transaction

    s = get_settings()
    with transaction(sessions_for(s.database_url)) as session:
        tenants = [t for t in repo.list_tenants(session) if tenant in (None, t.tenant_id)]
        if tenant and not tenants:
            raise fail(f"unknown tenant {tenant!r}")
        report = retention.sweep(session, Redis.from_url(s.redis_url), tenants)
    typer.echo(json.dumps(report, indent=2, sort_keys=True))


def forget(
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    thread: Annotated[list[str] | None, typer.Option(help="Thread to delete (repeatable).")] = None,
    subject: Annotated[
        str | None, typer.Option(help="End-user id: delete every thread with a job about them.")
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Delete even if jobs are still queued or running.")
    ] = False,
) -> None:
    """Delete a thread's or an end user's data everywhere; prints what was deleted.

    Checkpoints, jobs, outcomes, deliveries, dead letters and egress records in Postgres,
    the thread's keys in Redis, and the tenant index's caches in Elasticsearch.
    """
    from redis import Redis

    from corpus import index_name, make_es_client
    from workers.core import retention
    from workers.db import repository as repo
    from workers.db.engine import sessions_for, transaction

    if not thread and not subject:
        raise fail("name what to forget: --thread (repeatable) and/or --subject")
    s = get_settings()
    with transaction(sessions_for(s.database_url)) as session:
        if repo.get_tenant(session, tenant) is None:
            raise fail(f"unknown tenant {tenant!r}")
        threads = set(thread or ())
        if subject:
            threads |= set(retention.threads_of_subject(session, tenant, subject))
        try:
            counts = retention.delete_threads(
                session, Redis.from_url(s.redis_url), tenant, sorted(threads), force=force
            )
        except retention.ThreadBusy as exc:
            raise fail(f"{exc} (or pass --force)") from exc
    es = make_es_client(s.elasticsearch_url)
    es.indices.clear_cache(
        index=index_name(tenant, s.index_prefix), request=True, query=True, ignore_unavailable=True
    )
    typer.echo(
        json.dumps({"tenant": tenant, "threads": sorted(threads), "deleted": counts}, indent=2)
    )
