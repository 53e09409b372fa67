"""Bursts of jobs through real workers while one service fails: what was lost, doubled or
reordered, and how long the fleet took to drain once the service was back.

Shared by the fault tests (``test_faults.py::test_a_burst_survives``) and the fault
benchmark (``python -m bench.faults``). A burst: ``jobs`` signed jobs on ``threads``
threads, ``gap_s`` apart, through ``workers`` real ``crag worker`` processes, with the
scripted model; at ``fault_at_s`` after the first submission the fault starts, and after
``outage_s`` it ends. Counted from the webhook receiver (deliveries), the jobs table and
the checkpointed thread histories (turns and their order).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pipeline.graph import build_graph
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.graph_helpers import TORQUE_ANSWER, torque_model
from tests.integration.harness import (
    ROOT,
    ScratchPostgres,
    ScratchRedis,
    producer,
    worker_fleet,
)
from workers.cli.demo_stand_ins import WebhookReceiver
from workers.client.intake import submit_question
from workers.contracts.jobs import Job
from workers.core.tenants import TenantKeys
from workers.db import repository as repo
from workers.db.engine import make_engine, make_sessionmaker, transaction
from workers.db.models import Tenant
from workers.runtime.checkpointing import serde_from_settings
from workers.runtime.resources import make_checkpointer
from workers.settings import Settings

FAULTS = ("redis", "postgres", "elasticsearch", "pool-kill", "drain-kill")
"""What a burst can break: restart Redis or Postgres (private instances), close the
tenant's Elasticsearch index, kill -9 a worker's pool process, or kill -9 the pool process
that is running a thread's next jobs in the task of the job before them (the first one
whose log says so: ``CRAG_THREAD_DRAIN_S``)."""

OUTAGE_S = {
    "redis": 1.0,
    "postgres": 10.0,
    "elasticsearch": 5.0,
    "pool-kill": 0.0,
    "drain-kill": 0.0,
}
"""Default time each fault lasts, seconds (the issue's scenarios)."""

SHAPE: dict[str, dict[str, float]] = {
    "drain-kill": {"threads": 1, "gap_s": 0.02, "fault_at_s": 0.0},
}
"""A fault's own burst shape where the default (4 threads, 0.1 s apart, fault at 1 s) would
not reach it: a thread's jobs queue up only when they come faster than they run."""

QUESTION = "What torque does the rotor shaft fastener need?"
_NUMBER = re.compile(r"\(#(\d+)\)")
_DRAINING = re.compile(r"job (\S+) runs next on thread \S+ in this task \(process (\d+)\)")
"""The log line of a task running its thread's next job (``workers.celery.tasks``)."""


@dataclass
class BurstReport:
    """What a burst did. Times in seconds.

    Attributes:
        fault: Which fault (one of :data:`FAULTS`).
        submitted: Jobs submitted.
        outcomes: Jobs with a stored outcome.
        delivered: Jobs whose outcome reached the webhook.
        duplicates: Deliveries beyond the first per job.
        lost: Submitted jobs never delivered.
        duplicated_turns: Turns beyond one per job in the thread histories.
        missing_turns: Answered jobs with no turn in their thread's history.
        order_violations: Pairs of jobs on one thread whose turns are in the opposite
            order of their submission.
        drain_s: From the service's return to the last delivery (0 if all were
            delivered before it came back).
        struck: Whether the fault happened (``drain-kill``: a draining process was found
            and killed; the other faults always happen).
        struck_job: ``drain-kill``: the job that process was running when it was killed
            (once its row says ``running``; its scripted generator then pauses 0.2-0.6 s).
        statuses: Outcomes of the delivered jobs by status and reason, counted
            (``"answered"``, ``"abstained/retrieval_unavailable"``…).
    """

    fault: str
    submitted: int = 0
    outcomes: int = 0
    delivered: int = 0
    duplicates: int = 0
    lost: int = 0
    duplicated_turns: int = 0
    missing_turns: int = 0
    order_violations: int = 0
    drain_s: float = 0.0
    struck: bool = False
    struck_job: str = ""
    statuses: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The report as plain data (for JSON)."""
        return asdict(self)


def jitter_generator(user: str) -> dict[str, Any]:
    """The generator's script: a random pause of 0.2 to 0.6 s (runs overlap, and a fault
    finds runs in flight, as a CPU model's would be), then the answer."""
    time.sleep(random.uniform(0.2, 0.6))
    return TORQUE_ANSWER


@contextmanager
def scripted_model() -> Iterator[FakeOpenAIServer]:
    """The scripted OpenAI-compatible model every burst's workers call."""
    with FakeOpenAIServer(torque_model(jitter_generator)) as server:
        yield server


def fleet_env(llm: FakeOpenAIServer, **settings: str) -> dict[str, str]:
    """Worker environment: private queues, quick retries, the scripted model, no web."""
    suffix = uuid.uuid4().hex[:8]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRAG_WEB_SEARCH")}
    env |= {
        "CRAG_LLM_BASE_URL": llm.base_url,
        "CRAG_QUEUE": f"crag.questions.fault-{suffix}",
        "CRAG_DELIVERY_QUEUE": f"crag.deliveries.fault-{suffix}",
        "CRAG_RETRY_BACKOFF_S": "1",
        "CRAG_RETRY_BACKOFF_MAX_S": "3",
        "CRAG_THREAD_POLL_S": "2",
        "CRAG_TRACE_CONSOLE": "false",
    }
    return env | {f"CRAG_{k.upper()}": v for k, v in settings.items()}


def copy_tenant(database_url: str, keys: TenantKeys) -> None:
    """Register a tenant of the suite's database in another one (a private Postgres)."""
    sessions = make_sessionmaker(make_engine(database_url, pool_size=1))
    with transaction(sessions) as session:
        repo.add_tenant(
            session,
            Tenant(
                tenant_id=keys.tenant_id,
                name=keys.tenant_id,
                webhook_secret=keys.webhook_secret,
                submission_key=keys.submission_key,
                webhook_allowlist=["127.0.0.1"],
            ),
        )


def migrate(env: dict[str, str]) -> None:
    """Apply the schema to the database of ``env`` (``crag db upgrade``)."""
    subprocess.run(
        [sys.executable, "-m", "workers.cli", "db", "upgrade"],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
    )


def pool_children(pid: int) -> list[int]:
    """Pids of a Celery worker's pool processes."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(p) for p in found.stdout.split()]


def _draining_process(log_dir: Path | None, timeout_s: float) -> tuple[str, int] | None:
    """The job and pid of the first pool process whose log says it runs a thread's next job."""
    deadline = time.monotonic() + timeout_s
    while log_dir is not None and time.monotonic() < deadline:
        for log in sorted(log_dir.glob("worker-*.log")):
            found = _DRAINING.search(log.read_text(errors="replace"))
            if found:
                return found.group(1), int(found.group(2))
        time.sleep(0.01)
    return None


def run_burst(
    fault: str,
    keys: TenantKeys,
    llm: FakeOpenAIServer,
    log_dir: Path,
    *,
    jobs: int = 20,
    threads: int | None = None,
    gap_s: float | None = None,
    workers: int = 2,
    fault_at_s: float | None = None,
    outage_s: float | None = None,
    timeout_s: float = 180.0,
) -> BurstReport:
    """Run one burst with ``fault`` and count what happened (see the module docstring).

    Args:
        fault: One of :data:`FAULTS`.
        keys: A tenant registered in the suite's database whose index holds the test corpus.
        llm: The scripted model server.
        log_dir: Where worker logs (and a private Redis's files) go.
        jobs: Jobs submitted.
        threads: Threads they are spread over (job ``n`` on thread ``n % threads``;
            default 4, or the fault's :data:`SHAPE`).
        gap_s: Seconds between submissions (default 0.1, or the fault's shape).
        workers: Worker processes (one slot each).
        fault_at_s: When the fault starts, seconds after the first submission (default 1,
            or the fault's shape).
        outage_s: How long it lasts (default :data:`OUTAGE_S`).
        timeout_s: How long to wait for the deliveries once the fault has ended.

    Raises:
        ValueError: ``fault`` is not one of :data:`FAULTS`.
    """
    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}: one of {', '.join(FAULTS)}")
    outage = OUTAGE_S[fault] if outage_s is None else outage_s
    shape = SHAPE.get(fault, {})
    threads = int(shape.get("threads", 4)) if threads is None else threads
    gap_s = shape.get("gap_s", 0.1) if gap_s is None else gap_s
    fault_at_s = shape.get("fault_at_s", 1.0) if fault_at_s is None else fault_at_s
    settings = Settings()
    redis, pg = ScratchRedis(log_dir), None
    env = fleet_env(llm)
    database_url = settings.database_url
    if fault == "redis":
        redis.start()
        env["CRAG_REDIS_URL"] = redis.url
    if fault == "postgres":
        pg = ScratchPostgres()
        pg.start()
        database_url = env["CRAG_DATABASE_URL"] = pg.url
        migrate(env)
        copy_tenant(pg.url, keys)
    prefix = uuid.uuid4().hex[:6]
    thread_ids = [f"burst-{prefix}-{t}" for t in range(threads)]
    report = BurstReport(fault, submitted=jobs)
    try:
        with (
            worker_fleet(env, log_dir, workers=workers) as procs,
            WebhookReceiver(keys.webhook_secret) as sink,
        ):
            breaker = _Breaker(fault, redis, pg, keys, settings, procs[0].pid, outage)
            breaker.log_dir = log_dir
            started = time.monotonic()
            timer = threading.Timer(fault_at_s, breaker.run)
            timer.start()
            job_ids = []
            for n in range(jobs):
                job_ids.append(
                    _submit(env, keys, sink, thread_ids[n % threads], f"{QUESTION} (#{n})")
                )
                time.sleep(max(0.0, started + (n + 1) * gap_s - time.monotonic()))
            timer.join()
            breaker.done.wait(outage + 60)
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                if {d.body["job_id"] for d in sink.deliveries} >= set(job_ids):
                    break
                time.sleep(0.1)
            time.sleep(2)  # a duplicate would arrive meanwhile
            report.struck = breaker.back_at is not None
            report.struck_job = breaker.struck_job
            back = breaker.back_at or time.monotonic()
            ours = [d for d in sink.deliveries if d.body["job_id"] in set(job_ids)]
            last = max((d.received_at for d in ours), default=back)
            counts = Counter(d.body["job_id"] for d in ours)
            report.delivered = len(counts)
            report.duplicates = sum(c - 1 for c in counts.values())
            report.lost = jobs - report.delivered
            report.drain_s = round(max(0.0, last - back), 1)
            firsts = {d.body["job_id"]: d.body["status"] for d in reversed(ours)}
            report.statuses = dict(
                Counter("/".join(filter(None, [d.body["status"], d.body.get("reason")]))
                        for d in {d.body["job_id"]: d for d in reversed(ours)}.values())
            )  # fmt: skip
        report.outcomes = _outcomes(database_url, keys.tenant_id, job_ids)
        _count_turns(report, database_url, keys.tenant_id, thread_ids, firsts, job_ids)
    finally:
        redis.stop()
        if pg is not None:
            pg.remove()
    return report


class _Breaker:
    """Starts and ends one fault; remembers when the service came back (monotonic)."""

    def __init__(
        self,
        fault: str,
        redis: ScratchRedis,
        pg: ScratchPostgres | None,
        keys: TenantKeys,
        settings: Settings,
        worker_pid: int,
        outage_s: float,
    ) -> None:
        self.fault, self.redis, self.pg, self.keys = fault, redis, pg, keys
        self.settings, self.worker_pid, self.outage_s = settings, worker_pid, outage_s
        self.back_at: float | None = None
        self.log_dir: Path | None = None
        self.struck_job = ""
        self.done = threading.Event()

    def run(self) -> None:
        try:
            if self.fault == "redis":
                self.redis.stop()
                time.sleep(self.outage_s)
                self.redis.start()
            elif self.fault == "postgres":
                assert self.pg is not None
                self.pg.stop()
                time.sleep(self.outage_s)
                self.pg.start()
            elif self.fault == "elasticsearch":
                from corpus import index_name, make_es_client

                es = make_es_client(self.settings.elasticsearch_url)
                name = index_name(self.keys.tenant_id, self.settings.index_prefix)
                es.indices.close(index=name)
                time.sleep(self.outage_s)
                es.indices.open(index=name, wait_for_active_shards="1")
            elif self.fault == "drain-kill":
                found = _draining_process(self.log_dir, timeout_s=60)
                if found is None:
                    return  # never drained: ``struck`` stays False and the test says so
                self.struck_job, pid = found
                self._wait_running(self.struck_job)  # its generator then pauses 0.2-0.6 s
                os.kill(pid, 9)
            else:
                for child in pool_children(self.worker_pid)[:1]:
                    os.kill(child, 9)
            self.back_at = time.monotonic()
        finally:
            self.done.set()

    def _wait_running(self, job_id: str, timeout_s: float = 10.0) -> None:
        """Wait until ``job_id``'s row says it runs (its attempt has started)."""
        sessions = make_sessionmaker(make_engine(self.settings.database_url, pool_size=1))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with sessions() as session:
                record = repo.get_job(session, self.keys.tenant_id, job_id)
                if record is not None and record.status == "running":
                    return
            time.sleep(0.005)


def submit(
    env: dict[str, str], keys: Any, sink: WebhookReceiver, thread: str, question: str,
    **options: Any,
) -> Job:  # fmt: skip
    """Sign and enqueue a question on the fleet's queue (``env``), delivered to ``sink``."""
    return submit_question(
        producer(env.get("CRAG_REDIS_URL") or Settings().redis_url),
        env["CRAG_QUEUE"],
        keys.tenant_id,
        thread,
        question,
        webhook_url=sink.url,
        key=keys.submission_key,
        **options,
    )


def _submit(env: dict[str, str], keys: TenantKeys, sink: WebhookReceiver, thread: str,
            question: str) -> str:  # fmt: skip
    """Enqueue as an upstream system would: on a refused connection, try again (same
    job_id, so a job sent twice is still one job)."""
    job_id = str(uuid.uuid4())
    for attempt in range(100):
        try:
            return submit(env, keys, sink, thread, question, job_id=job_id).job_id
        except Exception:  # Redis is restarting
            if attempt == 99:
                raise
            time.sleep(0.2)
    raise AssertionError("unreachable")


def _outcomes(database_url: str, tenant_id: str, job_ids: list[str]) -> int:
    sessions = make_sessionmaker(make_engine(database_url, pool_size=1))
    with sessions() as session:
        return sum(repo.get_outcome(session, tenant_id, j) is not None for j in job_ids)


def _count_turns(
    report: BurstReport,
    database_url: str,
    tenant_id: str,
    thread_ids: list[str],
    statuses: dict[str, str],
    job_ids: list[str],
) -> None:
    """Turns per job and their order, from each thread's checkpointed history."""
    saver, pool = make_checkpointer(database_url, max_size=1, serde=serde_from_settings(Settings()))
    with closing(pool):
        graph = build_graph(saver)
        for thread in thread_ids:
            config = {"configurable": {"thread_id": f"{tenant_id}:{thread}"}}
            history = graph.get_state(config).values.get("history", [])
            numbers = [int(m.group(1)) for t in history if (m := _NUMBER.search(t["question"]))]
            seen = Counter(numbers)
            report.duplicated_turns += sum(c - 1 for c in seen.values())
            mine = [n for n in range(len(job_ids)) if thread_ids[n % len(thread_ids)] == thread]
            report.missing_turns += sum(
                1 for n in mine if statuses.get(job_ids[n]) == "answered" and n not in seen
            )
            firsts = list(dict.fromkeys(numbers))
            report.order_violations += sum(
                1 for i, a in enumerate(firsts) for b in firsts[i + 1 :] if a > b
            )
