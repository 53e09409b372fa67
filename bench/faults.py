"""Fault benchmark: what a burst of jobs loses, doubles or reorders when a service fails.

Per fault (Redis or Postgres restarted, the Elasticsearch index closed, a pool process
killed, the pool process running a thread's next jobs killed): submitted, outcomes,
delivered, duplicates, lost, duplicated turns, order violations, the drain time once the
service is back, and whether the fault struck.

Run with the services up (``infra/up``; the checkpoint key in the environment, as
``make`` sets it)::

    CRAG_CHECKPOINT_KEY_FILE=.infra/checkpoint-keys.json .venv/bin/python -m bench.faults
    ... --fault redis --fault postgres --jobs 40 --json faults.json

Each burst (:mod:`tests.integration.bursts`): 20 signed jobs on 4 threads, 0.1 s apart, two
``crag worker`` processes, the scripted model; the fault starts 1 s after the first job.
Redis and Postgres are private instances, restarted; Elasticsearch is the suite's, with the
burst tenant's index closed for the outage; pool-kill is ``kill -9`` of one pool process;
drain-kill sends its 20 jobs to one thread 0.02 s apart and kills the first pool process
that runs a thread's next job in the task of the one before (``--threads`` applies to the
other faults).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from pathlib import Path

from corpus import index_name, ingest_paths, make_es_client
from tests.conftest import forget_tenant
from tests.integration.bursts import FAULTS, OUTAGE_S, run_burst, scripted_model
from workers.cli.main import tenant_keys
from workers.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ("submitted", "outcomes", "delivered", "duplicates", "lost", "duplicated_turns",
           "missing_turns", "order_violations", "drain_s", "struck")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the bursts and print one row per fault; exit 1 when a target was missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--fault", action="append", choices=FAULTS, help="default: all")
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--threads", type=int, help="default 4 (drain-kill: 1)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the reports here")
    args = parser.parse_args(argv)
    settings = Settings()
    if settings.checkpoint_encryption and not (
        settings.checkpoint_keys or settings.checkpoint_key_file
    ):
        parser.error("no checkpoint key: set CRAG_CHECKPOINT_KEY_FILE=.infra/checkpoint-keys.json")
    tenant = f"faults-{uuid.uuid4().hex[:6]}"
    es = make_es_client(settings.elasticsearch_url)
    ingest_paths(es, tenant, [ROOT / "tests/data/corpus"], index_prefix=settings.index_prefix)
    keys = tenant_keys(tenant, allow_hosts=["127.0.0.1"])
    reports = []
    print("| fault (outage) | " + " | ".join(COLUMNS) + " | outcomes by status |")
    print("|" + " --- |" * (len(COLUMNS) + 2))
    try:
        with scripted_model() as llm:
            for fault in args.fault or FAULTS:
                with tempfile.TemporaryDirectory(prefix=f"crag-{fault}-") as logs:
                    report = run_burst(fault, keys, llm, Path(logs), jobs=args.jobs,
                                       threads=args.threads, workers=args.workers)  # fmt: skip
                reports.append(report.as_dict())
                row = [str(reports[-1][c]) for c in COLUMNS]
                statuses = ", ".join(f"{k} {v}" for k, v in reports[-1]["statuses"].items())
                cells = " | ".join([f"{fault} ({OUTAGE_S[fault]:g} s)", *row, statuses])
                print(f"| {cells} |", flush=True)
    finally:
        es.indices.delete(index=index_name(tenant, settings.index_prefix), ignore_unavailable=True)
        forget_tenant(settings, tenant)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))
    missed = [
        r["fault"]
        for r in reports
        if r["lost"] or r["duplicates"] or r["duplicated_turns"] or r["missing_turns"]
        or r["order_violations"] or r["drain_s"] > 10
    ]  # fmt: skip
    if missed:
        targets = "0 lost, doubled, missing or reordered; drain <= 10 s"
        print(f"targets missed ({targets}): {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
