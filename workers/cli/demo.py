"""The main job on real input: the PostgreSQL manual as the demo tenant's corpus.

Ingests the manual (once; embedding every chunk for hybrid retrieval), starts a worker,
and sends the demo questions through the whole path: Redis queue → worker →
Elasticsearch → graph with Postgres checkpointer → signed webhook. A local receiver
verifies each webhook's signature and prints the outcome.

There is no internet here, so unless ``CRAG_WEB_SEARCH_URL`` names a real provider, web
search goes to a local stand-in that records the (redacted) queries it receives and returns
no results; the demo prints what left the fleet.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from langgraph.checkpoint.serde.base import CipherProtocol
from redis import Redis

from workers.cli.demo_stand_ins import EgressRecorder, WebhookReceiver
from workers.core.progress import read_events
from workers.core.timeline import event_line
from workers.runtime.checkpointing import key_ring_from_settings
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
    from corpus import IngestError, make_es_client
    from corpus.freshness import ensure_indexed
    from workers.celery.app import app as celery_app
    from workers.cli.main import ingest_progress, tenant_keys
    from workers.client.intake import submit_question
    from workers.runtime.models import make_embeddings_for

    es = make_es_client(settings.elasticsearch_url)
    if not corpus.is_dir():
        print(f"demo corpus {corpus} not found (infra/up installs postgresql-doc-15)")
        return 2
    # The back-of-book index lists every term and would top most BM25 searches.
    pages = sorted(p for p in corpus.glob("*.html") if p.name not in SKIP_PAGES)
    try:
        embeddings = make_embeddings_for(settings)
    except ImportError as exc:
        print(f"no embeddings ({exc}); the demo tenant uses BM25 only", flush=True)
        embeddings = None
    retrieval = "hybrid" if embeddings is not None else "bm25"
    try:
        with ingest_progress(embeddings is not None) as progress:
            report = ensure_indexed(
                es, tenant, pages, index_prefix=settings.index_prefix, reingest=reingest,
                embeddings=embeddings, say=lambda line: print(line, flush=True),
                progress=progress,
            )  # fmt: skip
    except IngestError as exc:
        print(f"ingesting the demo corpus failed: {exc}")
        return 1
    if report is not None:
        print(f"  {report.describe()}", flush=True)
    keys = tenant_keys(tenant, allow_hosts=["127.0.0.1"], retrieval=retrieval)
    print(f"tenant {tenant!r}: {retrieval} retrieval", flush=True)

    with WebhookReceiver(keys.webhook_secret) as receiver, EgressRecorder() as egress:
        env = os.environ | {"CRAG_WEB_SEARCH_URL": settings.web_search_url or egress.url}
        log_path = Path(os.environ.get("CRAG_INFRA_DIR", ".infra")) / "logs" / "demo-worker.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("w") as log:
            # One job at a time, so each question's time is its own (two would share the
            # two cores and the model server).
            worker = subprocess.Popen(
                [sys.executable, "-m", "workers.cli", "worker", "--concurrency", "1"],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                jobs = {}
                for label, question in QUESTIONS:
                    job = submit_question(
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
                redis = Redis.from_url(settings.redis_url)
                cipher = key_ring_from_settings(settings)
                for job_id, (label, question) in jobs.items():
                    print(f"\n[{label}] {question}", flush=True)
                    arrived = _wait_showing_progress(receiver, redis, cipher, tenant, job_id, 900)
                    if not arrived:
                        missing += 1
                        print("  no outcome within 900s")
                        continue
                    _print_outcome(arrived[-1].body, arrived[-1].verified)
                if not settings.web_search_url:
                    print("\nweb egress (local stand-in; no internet here) received:")
                    for query in egress.queries or ["(nothing)"]:
                        print(f"  {query!r}")
                return 1 if missing else 0
            finally:
                worker.terminate()
                worker.wait(timeout=60)


def _wait_showing_progress(
    receiver: WebhookReceiver,
    redis: Redis,
    cipher: CipherProtocol | None,
    tenant: str,
    job_id: str,
    timeout_s: float,
) -> list[Any]:
    """Wait for the job's webhook, printing its progress events as the worker runs it.

    Node starts, the route, each chunk's grade, rewrites, the web hop, the verdicts and the
    decision (:func:`workers.core.timeline.event_line`); the usage lines and the final event are
    left to the outcome printed after.
    """
    started = time.monotonic()
    after, first_at, last_node = "0-0", None, ""
    while time.monotonic() - started < timeout_s:
        arrived = receiver.wait_for(job_id, timeout_s=0.2)
        # After the outcome, one last read without blocking shows the nodes that ended it.
        block = None if arrived else 800
        for event in read_events(redis, tenant, job_id, after, block_ms=block, cipher=cipher):
            after = event["id"]
            first_at = first_at or event["at"]
            if event["kind"] in ("usage", "outcome"):
                continue
            if event["kind"] == "node":  # the graders of one round start together: once
                if event["node"] == last_node:
                    continue
                last_node = event["node"]
            print(f"  {event_line(event, first_at)}", flush=True)
        if arrived:
            return arrived
    return []


def _print_outcome(body: dict[str, Any], verified: bool) -> None:
    print(
        f"  status: {body['status']}   route: {body.get('route')}   "
        f"rewrites: {body['rewrites']}   generations: {body['generations']}   "
        f"time: {body['latency_ms'] / 1000:.1f} s"
    )
    print(
        f"  model calls: {body['model_calls']}   prompt tokens: {body.get('prompt_tokens', 0)} "
        f"({body.get('cached_prompt_tokens', 0)} reused from the server's cache)   "
        f"output tokens: {body.get('output_tokens', 0)}"
    )
    kinds = ", ".join(
        f"{kind} {n} ({body.get('tokens_by_kind', {}).get(kind, {}).get('input', 0)} in)"
        for kind, n in body.get("calls_by_kind", {}).items()
    )
    print(f"  by kind: {kinds or 'none'}")
    print(f"  path: {' → '.join(body.get('path', []))}")
    if body["status"] == "answered":
        print(f"  answer: {body['answer']}")
        for c in body["citations"]:
            print(f"    [{c['n']}] {c['title']} — {c['locator']}")
    else:
        print(f"  {body['status']} ({body.get('reason')}): {body.get('detail')}")
    if body.get("web_query"):
        print(f"  web query sent (redacted): {body['web_query']!r}")
    signature = "verified" if verified else "INVALID"
    print(f"  trace: {body.get('trace_id')}   webhook signature {signature}")
    sys.stdout.flush()
