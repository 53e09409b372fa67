"""Fleet overhead benchmark: jobs/s and enqueue→stored-outcome latency with an instant model.

The model is the scripted OpenAI-compatible stand-in (replies in well under a millisecond),
so what is measured is everything else: Redis queue, lock, Elasticsearch retrieval, graph
super-steps with Postgres checkpoints, outcome row. Run with the services up (infra/up):

    .venv/bin/python -m bench.fleet --jobs 200 --concurrency 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import TextIO

from sqlalchemy import func, select

from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.graph_helpers import torque_model
from workers.celery.app import app as celery_app
from workers.cli.main import tenant_keys
from workers.client.intake import submit_question
from workers.db.engine import make_engine, make_sessionmaker
from workers.db.models import JobRecord, OutcomeRecord
from workers.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Run the benchmark and print throughput and latency percentiles."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="distinct threads (0: one per job)")
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="one job at a time: latency of an idle fleet, not of a backlog",
    )
    args = parser.parse_args()

    from corpus import index_name, ingest_paths, make_es_client

    settings = Settings()
    tenant = f"bench-{uuid.uuid4().hex[:6]}"
    es = make_es_client(settings.elasticsearch_url)
    ingest_paths(es, tenant, [ROOT / "tests/data/corpus"], index_prefix=settings.index_prefix)
    key = tenant_keys(tenant, allow_hosts=["127.0.0.1"]).submission_key
    queue = f"crag.bench-{tenant}"
    with FakeOpenAIServer(torque_model()) as llm:
        env = os.environ | {
            "CRAG_LLM_BASE_URL": llm.base_url,
            "CRAG_QUEUE": queue,
            "CRAG_DELIVERY_QUEUE": queue + ".d",
        }
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "workers.cli",
                "worker",
                "--loglevel",
                "WARNING",
                "--concurrency",
                str(args.concurrency),
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)
        if worker.poll() is not None:  # e.g. no checkpoint key: the worker says which
            _, err = worker.communicate()
            sys.exit(f"the worker exited at start ({worker.returncode}):\n{err.strip()}")
        # From here on its stderr is not read: let it go to ours.
        assert worker.stderr is not None
        threading.Thread(target=_relay, args=(worker.stderr,), daemon=True).start()
        try:
            sessions = make_sessionmaker(make_engine(settings.database_url, pool_size=1))
            submit_question(
                celery_app,
                queue,
                tenant,
                f"{tenant}-warm-up",
                "What torque does the fastener need?",
                key=key,
            )
            _wait(sessions, tenant, 1, 120)
            started = time.perf_counter()
            for i in range(args.jobs):
                thread = f"{tenant}-t{i % args.threads}" if args.threads else f"{tenant}-t{i}"
                submit_question(
                    celery_app,
                    queue,
                    tenant,
                    thread,
                    "What torque does the fastener need?",
                    key=key,
                )
                if args.sequential:
                    _wait(sessions, tenant, i + 2, 60)
            _wait(sessions, tenant, args.jobs + 1, 600)
            elapsed = time.perf_counter() - started
            with sessions() as s:
                rows = s.execute(
                    select(JobRecord.submitted_at, OutcomeRecord.created_at)
                    .join(
                        OutcomeRecord,
                        (OutcomeRecord.tenant_id == JobRecord.tenant_id)
                        & (OutcomeRecord.job_id == JobRecord.job_id),
                    )
                    .where(
                        JobRecord.tenant_id == tenant, JobRecord.thread_id != f"{tenant}-warm-up"
                    )
                ).all()
            latencies = sorted((done - sub).total_seconds() * 1000 for sub, done in rows)
            q = statistics.quantiles(latencies, n=100)
            print(
                f"{'sequential' if args.sequential else 'burst'}: "
                f"{args.jobs} jobs, {args.concurrency} worker processes, "
                f"{args.threads or args.jobs} threads: {args.jobs / elapsed:.1f} jobs/s; "
                f"enqueue→outcome p50 {q[49]:.0f} ms, p90 {q[89]:.0f} ms, "
                f"p99 {q[98]:.0f} ms; model requests {llm.requests}"
            )
        finally:
            worker.terminate()
            worker.wait(timeout=60)
            es.indices.delete(index=index_name(tenant, settings.index_prefix))


def _relay(stream: TextIO) -> None:
    for line in stream:
        sys.stderr.write(line)


def _wait(sessions: object, tenant: str, count: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with sessions() as s:  # type: ignore[operator]
            done = s.scalar(
                select(func.count())
                .select_from(OutcomeRecord)
                .where(OutcomeRecord.tenant_id == tenant)
            )
        if done >= count:
            return
        time.sleep(0.05)
    raise TimeoutError(f"only {done} of {count} outcomes after {timeout_s}s")


if __name__ == "__main__":
    main()
