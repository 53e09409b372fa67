"""``crag tenants``: create, list, show, update, disable and enable tenants."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any

import typer

from workers.cli.errors import fail
from workers.settings import get_settings

app = typer.Typer(help="Tenants: keys, web-search policy, retention.", no_args_is_help=True)

Hosts = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-webhook-host", help="Host that may receive webhooks over http or privately."
    ),
]
AllowDomains = Annotated[
    list[str] | None,
    typer.Option("--web-allow-domain", help="Only web results from these domains."),
]
DenyDomains = Annotated[
    list[str] | None,
    typer.Option("--web-deny-domain", help="Never web results from these domains."),
]
DenyTerms = Annotated[
    list[str] | None,
    typer.Option("--deny-term", help="Term redacted from every outgoing query."),
]


TrustRules = Annotated[
    list[str] | None,
    typer.Option(
        "--trust",
        help="PATTERN=LEVEL: sources whose locator matches the glob rank LEVEL (first match "
        "wins; unmatched index chunks rank 1, web results 0). The trusted side of a "
        "conflict wins. '--trust none' clears the rules.",
    ),
]


VouchTrust = Annotated[
    str | None,
    typer.Option(
        help="LEVEL: a fact an answer gives (number, date, version, command) must be stated "
        "by a source ranked LEVEL or above, else the job abstains (uncorroborated); "
        "'any' turns the rule off (the default).",
    ),
]


def _vouch_level(value: str) -> int | None:
    """``"any"`` or an integer level; the error names the value."""
    if value.strip().lower() == "any":
        return None
    try:
        level = int(value)
    except ValueError:
        raise fail(f"--vouch-trust {value!r} must be an integer level or 'any'") from None
    if level < 1:
        raise fail(
            f"--vouch-trust {level}: every source ranks at least 0 (web results 0, index "
            "chunks 1), so nothing would be withheld; give 1 or more, or 'any' for off"
        )
    return level


def _check_vouching(level: int | None, rules: list[str]) -> None:
    """Refuse a vouching level no source can reach: every answer stating a fact would abstain."""
    from pipeline.conflicts import SourceTrust

    if level is None:
        return
    trust = SourceTrust.parse(rules)
    top = max([trust.index_default, *(rank for _, rank in trust.rules)])
    if level > top:
        raise fail(
            f"--vouch-trust {level}: no source ranks that high (the highest is {top}), "
            f"so every answer that states a fact would abstain; add a --trust rule ranking "
            f"your trusted sources {level} or above"
        )


class ConflictPolicy(StrEnum):
    """What a conflict between kept sources that trust does not settle ends in."""

    abstain = "abstain"
    both = "both"


OnConflict = Annotated[
    ConflictPolicy | None,
    typer.Option(
        help="abstain (conflicting_sources) or both (answer with both values and citations)."
    ),
]


def _trust_rules(rules: list[str]) -> list[str]:
    """Check ``PATTERN=LEVEL`` rules; the error names the bad one. ``["none"]`` clears them."""
    from pipeline.conflicts import SourceTrust

    if rules == ["none"]:
        return []
    try:
        SourceTrust.parse(rules)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    return list(rules)


class RetrievalMode(StrEnum):
    """How a tenant's index is searched."""

    bm25 = "bm25"
    hybrid = "hybrid"


Retrieval = Annotated[
    RetrievalMode,
    typer.Option(
        help="bm25, or hybrid: BM25 and kNN over CRAG_EMBEDDINGS vectors fused by RRF "
        "(ingest then embeds every chunk).",
    ),
]


def _sessions():  # type: ignore[no-untyped-def]
    from workers.db.engine import sessions_for

    return sessions_for(get_settings().database_url)


def _describe(t: Any, secrets: bool = False) -> dict[str, Any]:
    row = {
        "tenant_id": t.tenant_id,
        "name": t.name,
        "status": t.status,
        "web_search": t.web_search,
        "web_domain_allowlist": t.web_domain_allowlist,
        "web_domain_denylist": t.web_domain_denylist,
        "deny_terms": t.deny_terms,
        "webhook_allowlist": t.webhook_allowlist,
        "retention_days": t.retention_days,
        "retrieval": t.retrieval,
        "source_trust": t.source_trust,
        "on_conflict": t.on_conflict,
        "vouch_trust": t.vouch_trust,
        "created_at": t.created_at.isoformat() if t.created_at else None,
    }
    if secrets:
        row |= {"webhook_secret": t.webhook_secret, "submission_key": t.submission_key}
    return row


def _domains(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return sorted({v.strip().lower().lstrip(".") for v in values if v.strip()})


@app.command("create")
def create(
    tenant: str,
    name: Annotated[str | None, typer.Option(help="Display name (default: the id).")] = None,
    secret: Annotated[
        str | None, typer.Option(help="Webhook secret (whsec_…); generated when omitted.")
    ] = None,
    allow_webhook_host: Hosts = None,
    web_search: Annotated[bool, typer.Option(help="May questions go to web search?")] = True,
    web_allow_domain: AllowDomains = None,
    web_deny_domain: DenyDomains = None,
    deny_term: DenyTerms = None,
    retention_days: Annotated[int, typer.Option(min=1, help="Days data is kept.")] = 30,
    retrieval: Retrieval = RetrievalMode.bm25,
    trust: TrustRules = None,
    on_conflict: OnConflict = None,
    vouch_trust: VouchTrust = None,
) -> None:
    """Register a tenant; prints its webhook secret and job-submission key (keep both)."""
    from corpus import validate_tenant_id
    from workers.core import tenants
    from workers.db import repository as repo
    from workers.db.engine import transaction

    rules = _trust_rules(trust or [])  # every option is checked before anything is stored
    level = _vouch_level(vouch_trust) if vouch_trust is not None else None
    _check_vouching(level, rules)
    try:
        validate_tenant_id(tenant)
        keys = tenants.ensure_tenant(
            _sessions(),
            tenant,
            webhook_secret=secret,
            allow_hosts=allow_webhook_host or (),
            name=name,
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if not keys.created:
        raise fail(
            f"tenant {tenant!r} exists; change it with `crag tenants update`, see its keys "
            f"with `crag tenants show {tenant} --show-secrets`"
        )
    with transaction(_sessions()) as session:
        row = repo.get_tenant(session, tenant)
        assert row is not None
        row.web_search = web_search
        row.web_domain_allowlist = _domains(web_allow_domain) or []
        row.web_domain_denylist = _domains(web_deny_domain) or []
        row.deny_terms = sorted(set(deny_term or ()))
        row.retention_days = retention_days
        row.retrieval = retrieval.value
        row.source_trust = rules
        row.on_conflict = (on_conflict or ConflictPolicy.abstain).value
        row.vouch_trust = level
    typer.echo(f"{tenant}: registered")
    typer.echo(f"webhook secret:  {keys.webhook_secret}")
    typer.echo(f"submission key:  {keys.submission_key}")


@app.command("list")
def list_tenants(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Registered tenants (no secrets)."""
    from workers.db import repository as repo

    with _sessions()() as session:
        rows = [_describe(t) for t in repo.list_tenants(session)]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        web = "web" if r["web_search"] else "no-web"
        typer.echo(f"{r['tenant_id']}\t{r['status']}\t{web}\t{r['retention_days']}d\t{r['name']}")


@app.command("show")
def show(
    tenant: str,
    show_secrets: Annotated[
        bool, typer.Option("--show-secrets", help="Also print the webhook secret and key.")
    ] = False,
) -> None:
    """One tenant's settings, as JSON."""
    from workers.db import repository as repo

    with _sessions()() as session:
        row = repo.get_tenant(session, tenant)
        if row is None:
            raise fail(f"unknown tenant {tenant!r}")
        typer.echo(json.dumps(_describe(row, show_secrets), indent=2))


@app.command("update")
def update(
    tenant: str,
    name: Annotated[str | None, typer.Option()] = None,
    allow_webhook_host: Hosts = None,
    web_search: Annotated[bool | None, typer.Option("--web-search/--no-web-search")] = None,
    web_allow_domain: AllowDomains = None,
    web_deny_domain: DenyDomains = None,
    deny_term: DenyTerms = None,
    retention_days: Annotated[int | None, typer.Option(min=1)] = None,
    retrieval: Annotated[RetrievalMode | None, typer.Option(help="bm25 or hybrid.")] = None,
    trust: TrustRules = None,
    on_conflict: OnConflict = None,
    vouch_trust: VouchTrust = None,
    rotate_submission_key: Annotated[
        bool, typer.Option(help="Issue a new job-submission key (the old one stops working).")
    ] = False,
    rotate_webhook_secret: Annotated[
        bool, typer.Option(help="Issue a new webhook secret (receivers must switch to it).")
    ] = False,
) -> None:
    """Change a tenant. A list option given replaces that list (give it once per entry)."""
    from workers.core import tenants
    from workers.db import repository as repo
    from workers.db.engine import transaction
    from workers.delivery.attempt import new_secret

    with transaction(_sessions()) as session:
        row = repo.get_tenant(session, tenant)
        if row is None:
            raise fail(f"unknown tenant {tenant!r}")
        if name is not None:
            row.name = name
        if allow_webhook_host is not None:
            row.webhook_allowlist = sorted(set(allow_webhook_host))
        if web_search is not None:
            row.web_search = web_search
        if web_allow_domain is not None:
            row.web_domain_allowlist = _domains(web_allow_domain) or []
        if web_deny_domain is not None:
            row.web_domain_denylist = _domains(web_deny_domain) or []
        if deny_term is not None:
            row.deny_terms = sorted(set(deny_term))
        if retention_days is not None:
            row.retention_days = retention_days
        if trust is not None:
            row.source_trust = _trust_rules(trust)
        if on_conflict is not None:
            row.on_conflict = on_conflict.value
        if vouch_trust is not None:
            row.vouch_trust = _vouch_level(vouch_trust)
        _check_vouching(row.vouch_trust, row.source_trust)
        if retrieval is not None:
            if retrieval is RetrievalMode.hybrid and row.retrieval != "hybrid":
                typer.echo(
                    f"retrieval is now hybrid: run `crag ingest --tenant {tenant}` on its "
                    "documents again so every chunk gets a vector",
                    err=True,
                )
            row.retrieval = retrieval.value
        if rotate_submission_key:
            row.submission_key = tenants.new_submission_key()
            typer.echo(f"submission key:  {row.submission_key}")
        if rotate_webhook_secret:
            row.webhook_secret = new_secret()
            typer.echo(f"webhook secret:  {row.webhook_secret}")
        typer.echo(json.dumps(_describe(row), indent=2))


def _set_status(tenant: str, status: str) -> None:
    from workers.db import repository as repo
    from workers.db.engine import transaction

    with transaction(_sessions()) as session:
        row = repo.get_tenant(session, tenant)
        if row is None:
            raise fail(f"unknown tenant {tenant!r}")
        row.status = status
    typer.echo(f"{tenant}: {status}")


@app.command("disable")
def disable(tenant: str) -> None:
    """Refuse the tenant's new jobs (they are dead-lettered with the reason); data is kept."""
    _set_status(tenant, "disabled")


@app.command("enable")
def enable(tenant: str) -> None:
    """Accept the tenant's jobs again."""
    _set_status(tenant, "active")
