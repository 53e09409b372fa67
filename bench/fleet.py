"""Fleet overhead benchmark: jobs/s and enqueue→stored-outcome latency with an instant model.

The model is the scripted OpenAI-compatible stand-in (replies in well under a millisecond),
so what is measured is everything else: Redis queue, lock, Elasticsearch retrieval, graph
super-steps with Postgres checkpoints, outcome row. Run with the services up (infra/up) and
the checkpoint key in the environment (``make`` sets it; outside make, export it):

    export CRAG_CHECKPOINT_KEY_FILE=$PWD/.infra/checkpoint-keys.json
    .venv/bin/python -m bench.fleet --jobs 200 --concurrency 2

A missing key, a service that does not answer, a worker that exits and a wait that times
out each stop the run at once with the cause (:mod:`bench.preflight`).
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from redis import Redis
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bench.cpu import tree_cpu_s
from bench.preflight import BenchSetupError, check_key, preflight, wait_outcomes
from workers.db.engine import make_engine, make_sessionmaker
from workers.db.models import JobRecord, OutcomeRecord
from workers.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What torque does the fastener need?"
BURST_POLL_S = 0.05
"""Seconds between counts of stored outcomes while a burst runs (see :meth:`Fleet.wait`)."""
WORKER_START_S = 120.0
"""Longest wait for the warm-up job (a pool process loads Presidio, spaCy and the graph)."""


@dataclass
class Figures:
    """What one benchmark phase measured (times in milliseconds, CPU in seconds)."""

    jobs: int
    elapsed_s: float
    latencies_ms: list[float]
    cpu_s: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def jobs_per_s(self) -> float:
        """Throughput, jobs per second of wall time."""
        return self.jobs / self.elapsed_s

    def pct(self, p: int) -> float:
        """The ``p``-th percentile of enqueue→outcome latency, ms."""
        if len(self.latencies_ms) < 2:
            return self.latencies_ms[0] if self.latencies_ms else float("nan")
        return statistics.quantiles(self.latencies_ms, n=100)[p - 1]

    @property
    def cpu_ms_per_job(self) -> float:
        """Worker CPU (all its processes) per job, ms."""
        return self.cpu_s * 1000 / self.jobs


class Fleet:
    """A running fleet on a fresh tenant: worker processes, scripted model, ingested corpus."""

    def __init__(
        self,
        settings: Settings,
        tenant: str,
        key: str,
        queue: str,
        worker: subprocess.Popen[str],
        sessions: sessionmaker[Session],
        graph: str = "corrective",
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.tenant = tenant
        self.key = key
        self.queue = queue
        self.worker = worker
        self.sessions = sessions
        self.redis = Redis.from_url(settings.redis_url)
        self.submitted = 0

    def submit(self, thread: str, question: str = QUESTION) -> None:
        """Enqueue ``question`` on ``thread`` (a tenant-local id)."""
        from workers.celery.app import app as celery_app
        from workers.client.intake import submit_question

        submit_question(
            celery_app, self.queue, self.tenant, f"{self.tenant}-{thread}", question, key=self.key
        )
        self.submitted += 1

    def wait(self, timeout_s: float, poll_s: float = 0.005) -> None:
        """Wait until every job submitted so far has its outcome stored.

        ``poll_s`` is the time between counts of the outcomes: short when one job is
        waited for (the next is enqueued as soon as it ends), longer while a burst runs, so
        the counting itself (a query every poll, on the same cores) does not slow the fleet
        it measures. Latencies are read from the rows' own times either way.

        Raises:
            BenchSetupError: The worker exited or the wait timed out (with where the jobs are).
        """
        wait_outcomes(
            self.sessions,
            self.tenant,
            self.submitted,
            timeout_s,
            poll_s=poll_s,
            worker=self.worker,
            redis=self.redis,
            queue=self.queue,
        )

    def latencies_ms(self, thread_prefix: str) -> list[float]:
        """Enqueue→stored outcome of the jobs on threads starting with ``thread_prefix``, ms."""
        with self.sessions() as s:
            rows = s.execute(
                select(JobRecord.submitted_at, OutcomeRecord.created_at)
                .join(
                    OutcomeRecord,
                    (OutcomeRecord.tenant_id == JobRecord.tenant_id)
                    & (OutcomeRecord.job_id == JobRecord.job_id),
                )
                .where(
                    JobRecord.tenant_id == self.tenant,
                    JobRecord.thread_id.startswith(f"{self.tenant}-{thread_prefix}"),
                )
            ).all()
        return sorted((done - sub).total_seconds() * 1000 for sub, done in rows)

    def cpu_s(self) -> float:
        """CPU seconds the worker and its pool processes have used so far."""
        return tree_cpu_s(self.worker.pid)

    def burst(self, jobs: int, threads: int = 0, name: str = "b") -> Figures:
        """Enqueue ``jobs`` at once (on ``threads`` threads; 0: one per job) and wait for all."""

        def run() -> None:
            for i in range(jobs):
                self.submit(f"{name}{i % threads if threads else i}")
            self.wait(600, poll_s=BURST_POLL_S)

        return self._measured(jobs, name, run)

    def sequential(self, jobs: int, name: str = "s") -> Figures:
        """Enqueue one job, wait for its outcome, repeat: the latency of an idle fleet."""

        def run() -> None:
            for i in range(jobs):
                self.submit(f"{name}{i}")
                self.wait(60)

        return self._measured(jobs, name, run)

    def _measured(self, jobs: int, name: str, run: Callable[[], None]) -> Figures:
        """Wall time, outcome latencies of thread prefix ``name`` and worker CPU of ``run``."""
        cpu0, started = self.cpu_s(), time.perf_counter()
        run()
        elapsed = time.perf_counter() - started
        return Figures(jobs, elapsed, self.latencies_ms(name), self.cpu_s() - cpu0)

    def same_thread(self, jobs: int, name: str = "one") -> Figures:
        """Enqueue ``jobs`` on one thread at once; check they ran in submission order.

        ``extra`` holds ``fifo`` (outcomes stored in submission order, every job's turn
        recorded in the thread's history) and ``kept`` (turns in the thread's checkpointed
        history, which is ``jobs`` when no update was lost).
        """
        cpu0, started = self.cpu_s(), time.perf_counter()
        for i in range(jobs):  # distinct questions: a repeat is answered from the history
            self.submit(f"{name}0", f"{QUESTION} (case {i})")
        self.wait(600, poll_s=BURST_POLL_S)
        elapsed = time.perf_counter() - started
        figures = Figures(jobs, elapsed, self.latencies_ms(name), self.cpu_s() - cpu0)
        with self.sessions() as s:
            rows = s.execute(
                select(JobRecord.submitted_at, OutcomeRecord.created_at, JobRecord.job_id)
                .join(
                    OutcomeRecord,
                    (OutcomeRecord.tenant_id == JobRecord.tenant_id)
                    & (OutcomeRecord.job_id == JobRecord.job_id),
                )
                .where(
                    JobRecord.tenant_id == self.tenant,
                    JobRecord.thread_id == f"{self.tenant}-{name}0",
                )
            ).all()
        by_submission = [r.job_id for r in sorted(rows, key=lambda r: r.submitted_at)]
        by_outcome = [r.job_id for r in sorted(rows, key=lambda r: r.created_at)]
        figures.extra = {"fifo": by_submission == by_outcome, "kept": self.turns(f"{name}0")}
        return figures

    def turns(self, thread: str) -> int:
        """How many turns the thread's latest checkpoint holds (its kept updates)."""
        from contextlib import closing

        from bench.peer_graph import build_for_fleet
        from pipeline.graph import build_graph
        from workers.runtime.checkpointing import serde_from_settings
        from workers.runtime.resources import make_checkpointer

        url, serde = self.settings.database_url, serde_from_settings(self.settings)
        saver, pool = make_checkpointer(url, max_size=1, serde=serde)
        build = build_for_fleet if self.graph == "trivial" else build_graph
        with closing(pool):
            graph_thread = f"{self.tenant}:{self.tenant}-{thread}"  # Job.graph_thread_id
            config = {"configurable": {"thread_id": graph_thread}}
            values = build(saver).get_state(config).values
            return len(values.get("history") or [])


GRAPHS = {"corrective": "workers.celery.app", "trivial": "bench.trivial_app"}
"""The graphs a benchmark fleet can run, by the Celery app that runs them."""


@contextmanager
def running_fleet(
    settings: Settings, concurrency: int, graph: str = "corrective"
) -> Iterator[Fleet]:
    """Start a fleet of ``concurrency`` worker processes on a fresh tenant, warmed up.

    ``graph`` is ``corrective`` (the product's graph, instant scripted model) or
    ``trivial`` (the peers' five nodes, :mod:`bench.trivial_app`).

    Raises:
        BenchSetupError: A check of :func:`bench.preflight.preflight` failed, or the worker
            exited or did not answer the warm-up job within :data:`WORKER_START_S`.
    """
    from corpus import index_name, ingest_paths, make_es_client
    from tests.fakes.openai_server import FakeOpenAIServer
    from tests.integration.graph_helpers import torque_model
    from workers.cli.main import celery_worker_argv, tenant_keys

    preflight(settings)
    tenant = f"bench-{uuid.uuid4().hex[:6]}"
    es = make_es_client(settings.elasticsearch_url)
    ingest_paths(es, tenant, [ROOT / "tests/data/corpus"], index_prefix=settings.index_prefix)
    key = tenant_keys(tenant, allow_hosts=["127.0.0.1"]).submission_key
    queue = f"crag.bench-{tenant}"
    try:
        with FakeOpenAIServer(torque_model()) as llm:
            env = os.environ | {
                "REMAP_SIGTERM": "SIGQUIT",  # as `crag worker`: SIGTERM is a soft shutdown
                "CRAG_LLM_BASE_URL": llm.base_url,
                "CRAG_QUEUE": queue,
                "CRAG_DELIVERY_QUEUE": queue + ".d",
            }
            worker = subprocess.Popen(
                celery_worker_argv(
                    Settings(queue=queue, delivery_queue=queue + ".d"),
                    concurrency,
                    "WARNING",
                    app_module=GRAPHS[graph],
                ),
                env=env,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert worker.stderr is not None
            threading.Thread(target=_relay, args=(worker.stderr,), daemon=True).start()
            try:
                sessions = make_sessionmaker(make_engine(settings.database_url, pool_size=1))
                fleet = Fleet(settings, tenant, key, queue, worker, sessions, graph)
                fleet.submit("warm-up")
                fleet.wait(WORKER_START_S)
                fleet.llm = llm  # type: ignore[attr-defined]
                yield fleet
            finally:
                worker.terminate()
                worker.wait(timeout=60)
    finally:
        es.indices.delete(index=index_name(tenant, settings.index_prefix))


def main() -> None:
    """Run the benchmark and print throughput and latency percentiles."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="distinct threads (0: one per job)")
    parser.add_argument(
        "--graph",
        choices=sorted(GRAPHS),
        default="corrective",
        help="corrective: the product's graph, instant model; trivial: the peers' five nodes",
    )
    parser.add_argument(
        "--same-thread", type=int, default=0, help="then N jobs on one thread: time, FIFO, kept"
    )
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="one job at a time: latency of an idle fleet, not of a backlog",
    )
    parser.add_argument(
        "--spy",
        type=Path,
        help="sample the worker processes with py-spy during the run, raw stacks to this file "
        "(summarise with python -m bench.spy_summary)",
    )
    args = parser.parse_args()
    try:
        check_key(Settings())  # before the slow imports: a missing key fails in a second
        fleet_of = running_fleet(Settings(), args.concurrency, args.graph)
        with fleet_of as fleet, spying(fleet, args.spy):
            if args.sequential:
                f = fleet.sequential(args.jobs)
            else:
                f = fleet.burst(args.jobs, args.threads)
            print(
                f"{'sequential' if args.sequential else 'burst'}, {args.graph} graph: "
                f"{args.jobs} jobs, {args.concurrency} worker processes, "
                f"{args.threads or args.jobs} threads: {f.jobs_per_s:.1f} jobs/s; "
                f"enqueue→outcome p50 {f.pct(50):.0f} ms, p90 {f.pct(90):.0f} ms, "
                f"p99 {f.pct(99):.0f} ms; worker CPU {f.cpu_ms_per_job:.0f} ms/job; "
                f"model requests {fleet.llm.requests}"  # type: ignore[attr-defined]
            )
            if args.same_thread:
                one = fleet.same_thread(args.same_thread)
                print(
                    f"same thread: {args.same_thread} jobs in {one.elapsed_s:.2f} s, "
                    f"FIFO {one.extra['fifo']}, {one.extra['kept']}/{args.same_thread} kept; "
                    f"worker CPU {one.cpu_ms_per_job:.0f} ms/job"
                )
    except BenchSetupError as exc:
        sys.exit(f"bench.fleet: {exc}")


@contextmanager
def spying(fleet: Fleet, out: Path | None) -> Iterator[None]:
    """Sample the worker and its pool processes with py-spy (100 Hz, CPU only) while open.

    Raises:
        BenchSetupError: ``out`` is given but py-spy is not installed.
    """
    if out is None:
        yield
        return
    spy = Path(sys.executable).parent / "py-spy"
    if not spy.exists():
        raise BenchSetupError(f"--spy needs py-spy: {sys.executable} -m pip install py-spy")
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [
            str(spy),
            "record",
            "--pid",
            str(fleet.worker.pid),
            "--subprocesses",
            "--nonblocking",
            "--gil",
            "-r",
            "100",
            "-f",
            "raw",
            "-o",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)  # py-spy attaches
    try:
        yield
    finally:
        proc.send_signal(2)  # SIGINT: py-spy writes its file and exits
        proc.wait(timeout=60)


def _relay(stream: TextIO) -> None:
    for line in stream:
        sys.stderr.write(line)


if __name__ == "__main__":
    main()
