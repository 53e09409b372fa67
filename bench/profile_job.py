"""Where one job's time goes: the worker's task body, in process, with every client probed.

Runs the Celery task body (:func:`workers.celery.tasks.answer_question`, called directly:
signature check, intake, thread lock, fence, the graph with its checkpoints, the outcome,
the outcome event, waking the next job) for ``--jobs`` jobs one after another, each on its
own thread, with the instant scripted model over HTTP (as ``bench.fleet``) and the real
Postgres, Redis and Elasticsearch. Prints, per job: calls, items and wall milliseconds of
each kind of work (:mod:`bench.probes`), the app-table statements by kind, and with
``--cprofile`` the functions that used the most time.

What it leaves out is the fleet around the task: Celery's consumer and pool, the queue, and
the wait until the next job is taken; ``bench.fleet --sequential`` minus this is that part.

    export CRAG_CHECKPOINT_KEY_FILE=$PWD/.infra/checkpoint-keys.json
    .venv/bin/python -m bench.profile_job --jobs 50 [--cprofile 25] [--console-spans]
        [--graph trivial]

``--graph trivial`` runs the peers' five-node graph (:mod:`bench.trivial_app`) in place of
the corrective one: what is left is the fleet's own work around a graph.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
import uuid
from pathlib import Path

from bench.fleet import GRAPHS
from bench.preflight import BenchSetupError, check_key, preflight
from bench.probes import Probes
from workers.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Profile ``--jobs`` jobs and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--cprofile", type=int, default=0, help="print the top N functions")
    parser.add_argument("--console-spans", action="store_true", help="console span exporter on")
    parser.add_argument("--graph", choices=sorted(GRAPHS), default="corrective")
    args = parser.parse_args()
    try:
        check_key(Settings())
        preflight(Settings())
    except BenchSetupError as exc:
        sys.exit(f"bench.profile_job: {exc}")

    from corpus import index_name, ingest_paths, make_es_client
    from tests.fakes.openai_server import FakeOpenAIServer
    from tests.integration.graph_helpers import torque_model
    from workers.celery import tasks
    from workers.contracts.jobs import new_job
    from workers.contracts.signing import sign_job
    from workers.core.tenants import ensure_tenant
    from workers.runtime.resources import Resources, set_resources
    from workers.runtime.telemetry import setup_tracing

    if args.graph == "trivial":
        import bench.trivial_app  # noqa: F401  (puts the five-node graph in the worker's place)
    expected = "abstained" if args.graph == "trivial" else "answered"

    tenant = f"prof-{uuid.uuid4().hex[:6]}"
    with FakeOpenAIServer(torque_model()) as llm:
        settings = Settings(llm_base_url=llm.base_url, trace_console=args.console_spans)
        provider = setup_tracing(
            settings.service_name, None, console=args.console_spans, stream=io.StringIO()
        )
        res = Resources.create(settings)
        set_resources(res)
        es = make_es_client(settings.elasticsearch_url)
        ingest_paths(es, tenant, [ROOT / "tests/data/corpus"], index_prefix=settings.index_prefix)
        key = ensure_tenant(res.sessions, tenant, allow_hosts=["127.0.0.1"]).submission_key
        probes = Probes()
        probes.install(res.engine)

        def one(i: int) -> float:
            job = new_job(tenant, f"{tenant}-t{i}", "What torque does the fastener need?")
            body = sign_job(job.model_dump(mode="json", exclude={"signed_at", "signature"}), key)
            t = time.perf_counter()
            result = tasks.answer_question(body)
            assert result["status"] == expected, result
            return time.perf_counter() - t

        try:
            for i in range(3):  # warm-up: first connections, caches, imports
                one(-1 - i)
            probes.reset()
            requests0 = llm.requests
            profiler = cProfile.Profile() if args.cprofile else None
            if profiler:
                profiler.enable()
            walls = [one(i) for i in range(args.jobs)]
            if profiler:
                profiler.disable()
            provider.force_flush()
            print_table(probes, walls, args, llm.requests - requests0)
            if profiler:
                out = io.StringIO()
                stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
                stats.print_stats(args.cprofile)
                print(out.getvalue())
        finally:
            set_resources(None)
            res.close()
            es.indices.delete(index=index_name(tenant, settings.index_prefix))


def print_table(
    probes: Probes, walls: list[float], args: argparse.Namespace, requests: int
) -> None:
    """Print the per-job table (Markdown) of the probes' meters."""
    n = len(walls)
    mean_ms = statistics.fmean(walls) * 1000
    print(
        f"\n{n} jobs one after another, task body in process: wall per job p50 "
        f"{statistics.median(walls) * 1000:.1f} ms, mean {mean_ms:.1f} ms; "
        f"model requests {requests / n:.1f}/job; console spans "
        f"{'on' if args.console_spans else 'off'}; {args.graph} graph\n"
    )
    print("| work (per job) | calls | items | ms | share of wall |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, m in sorted(probes.meters.items(), key=lambda kv: -kv[1].seconds):
        ms = m.seconds * 1000 / n
        share = f"{ms / mean_ms:.0%}" if m.seconds else ""
        items = f"{m.items / n:.1f}" if m.items else ""
        print(f"| {name} | {m.calls / n:.1f} | {items} | {ms:.1f} | {share} |")
    print("\n| app-table statement | per job |\n| --- | ---: |")
    for shape, count in sorted(probes.statements.items(), key=lambda kv: -kv[1]):
        print(f"| `{shape}` | {count / n:.1f} |")


if __name__ == "__main__":
    main()
