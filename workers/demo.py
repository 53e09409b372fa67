"""The main job on real input: the PostgreSQL manual as the demo tenant's corpus.

Ingests the manual (once), starts a worker, and sends the demo questions through the whole
path: Redis queue → worker → Elasticsearch → graph with Postgres checkpointer → signed
webhook. A local receiver verifies each webhook's signature and prints the outcome.

There is no internet here, so unless ``CRAG_WEB_SEARCH_URL`` names a real provider, web
search goes to a local stand-in that records the (redacted) queries it receives and returns
no results; the demo prints what left the fleet.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from workers.demo_services import EgressRecorder, WebhookReceiver
from workers.settings import Settings

SKIP_PAGES = {"bookindex.html"}

QUESTIONS = [
    ("answerable", "What does the VACUUM command do?"),
    ("answerable", "What is the default value of max_connections?"),
    ("not in the manual", "Who won the 2022 FIFA World Cup final?"),
    (
        "personal data, needs the web",
        "I am Maria Gonzalez, maria.gonzalez@example.com, phone +1 415-555-0132. "
        "What is the latest PostgreSQL release announced this week?",
    ),
]


def run_demo(settings: Settings, corpus: Path, tenant: str, reingest: bool) -> int:
    """Run the demo; returns a process exit code (0: every question got an outcome)."""
    from corpus import TenantRetriever, ingest_paths, make_es_client
    from workers.app import app as celery_app
    from workers.cli import describe_report, ensure_tenant
    from workers.intake import ask

    es = make_es_client(settings.elasticsearch_url)
    if reingest or TenantRetriever(es, tenant, index_prefix=settings.index_prefix).count() == 0:
        if not corpus.is_dir():
            print(f"demo corpus {corpus} not found (infra/up installs postgresql-doc-15)")
            return 2
        print(f"ingesting {corpus} into tenant {tenant!r} …", flush=True)
        # The back-of-book index lists every term and would top most BM25 searches.
        pages = sorted(p for p in corpus.glob("*.html") if p.name not in SKIP_PAGES)
        report = ingest_paths(es, tenant, pages, index_prefix=settings.index_prefix)
        print(f"  {describe_report(report)}", flush=True)
    keys = ensure_tenant(tenant, allow_hosts=["127.0.0.1"])

    with WebhookReceiver(keys.webhook_secret) as receiver, EgressRecorder() as egress:
        env = os.environ | {"CRAG_WEB_SEARCH_URL": settings.web_search_url or egress.url}
        log_path = Path(os.environ.get("CRAG_INFRA_DIR", ".infra")) / "logs" / "demo-worker.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("w") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "workers.cli", "worker", "--concurrency", "2"],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                jobs = {}
                for label, question in QUESTIONS:
                    job = ask(
                        celery_app,
                        settings.queue,
                        tenant,
                        f"demo-{uuid.uuid4().hex[:8]}",
                        question,
                        webhook_url=receiver.url,
                        key=keys.submission_key,
                    )
                    jobs[job.job_id] = (label, question)
                print(
                    f"enqueued {len(jobs)} questions on {settings.queue}; worker log: {log_path}",
                    flush=True,
                )
                missing = 0
                for job_id, (label, question) in jobs.items():
                    arrived = receiver.wait_for(job_id, timeout_s=900)
                    if not arrived:
                        missing += 1
                        print(f"\n[{label}] {question}\n  no outcome within 900s")
                        continue
                    _print_outcome(label, question, arrived[-1].body, arrived[-1].verified)
                if not settings.web_search_url:
                    print("\nweb egress (local stand-in; no internet here) received:")
                    for query in egress.queries or ["(nothing)"]:
                        print(f"  {query!r}")
                return 1 if missing else 0
            finally:
                worker.terminate()
                worker.wait(timeout=60)


def _print_outcome(label: str, question: str, body: dict[str, Any], verified: bool) -> None:
    print(f"\n[{label}] {question}")
    print(
        f"  status: {body['status']}   route: {body.get('route')}   "
        f"rewrites: {body['rewrites']}   generations: {body['generations']}   "
        f"model calls: {body['model_calls']}   latency: {body['latency_ms']} ms"
    )
    print(f"  path: {' → '.join(body.get('path', []))}")
    kinds = ", ".join(f"{k} {n}" for k, n in body.get("calls_by_kind", {}).items())
    print(f"  model calls by kind: {kinds or 'none'}")
    if body["status"] == "answered":
        print(f"  answer: {body['answer']}")
        for c in body["citations"]:
            print(f"    [{c['n']}] {c['title']} — {c['locator']}")
    else:
        print(f"  abstained ({body.get('reason')}): {body.get('detail')}")
    if body.get("web_query"):
        print(f"  web query sent (redacted): {body['web_query']!r}")
    signature = "verified" if verified else "INVALID"
    print(f"  trace: {body.get('trace_id')}   webhook signature {signature}")
    sys.stdout.flush()
