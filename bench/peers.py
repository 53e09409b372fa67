"""Our fleet beside the open-source LangGraph run servers, in one run on this machine.

Installs each peer from PyPI into its own virtual environment under ``.bench/peers/``
(once; ``--reinstall`` to redo), gives each its own Postgres database (``peers_<name>``, in
the Postgres of the settings) and, where it needs Redis, its own Redis database number,
starts it with its shipped defaults on the trivial graph of :mod:`bench.peer_graph`, and
runs the same four measurements on each and on our fleet (:mod:`bench.fleet`: the full
corrective graph with the instant scripted model, 2 and 1 worker processes):

- **burst**: ``--burst`` runs, one per thread, enqueued at once; runs per second until the
  last has finished;
- **one at a time**: ``--sequential`` runs, each enqueued when the one before finished;
  p50/p95 from enqueue to the finished run (ours: to the stored outcome);
- **one thread**: ``--same-thread`` runs enqueued at once on one thread (the peers with
  ``multitask_strategy="enqueue"``, their queueing strategy; ours queue by design); the
  time until all finished, whether every run's update is in the thread's state (turns
  kept) and whether they ran in submission order (FIFO);
- **CPU per run**: user+system CPU of the server's (or worker's) process tree during the
  burst, per run (Postgres, Redis and Elasticsearch are not counted, for anyone).

A peer that cannot be installed or started is listed with the reason instead of figures.
It is a benchmark, not a test: nothing is asserted. Run with the services up and the
checkpoint key in the environment:

    export CRAG_CHECKPOINT_KEY_FILE=$PWD/.infra/checkpoint-keys.json
    .venv/bin/python -m bench.peers [--burst 300 --sequential 50 --same-thread 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.cpu import tree_cpu_s
from bench.preflight import BenchSetupError, check_key
from workers.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".bench" / "peers"
START_TIMEOUT_S = 180.0


@dataclass
class Peer:
    """A run server to install and start."""

    name: str
    label: str
    packages: list[str]
    command: Callable[[Path, int], list[str]]
    env: Callable[[str, str], dict[str, str]]
    config_file: str
    redis_db: int | None = None

    @property
    def venv(self) -> Path:
        """Its virtual environment."""
        return CACHE / self.name


PEERS = [
    Peer(
        name="langhost",
        label="LangGraph Agent Server on Postgres + Redis (`langhost serve`)",
        packages=["langhost==0.11.1.post1", "langgraph-runtime-pg==0.11.1.post1"],
        command=lambda venv, port: [str(venv / "bin/langhost"), "serve", "--port", str(port),
                                    "--no-browser", "--server-log-level", "warning"],
        env=lambda db, redis: {"DATABASE_URI": db, "REDIS_URI": redis,
                               "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false",
                               "LANGGRAPH_CLI_NO_ANALYTICS": "1"},
        config_file="langgraph.json",
        redis_db=5,
    ),
    Peer(
        name="aegra",
        label="Aegra on Postgres (`aegra serve`)",
        # aegra-api imports sqlalchemy.ext.asyncio, which needs greenlet, but does not
        # declare it, and SQLAlchemy 2.1 no longer installs it: the server exits at import.
        packages=["aegra==0.2.0", "greenlet==3.5.6"],
        command=lambda venv, port: [str(venv / "bin/aegra"), "serve", "--host", "127.0.0.1",
                                    "--port", str(port)],
        env=lambda db, _redis: {"DATABASE_URL": db, "LOG_LEVEL": "WARNING",
                                "AEGRA_CONFIG": "aegra.json"},
        config_file="aegra.json",
    ),
]  # fmt: skip


OURS = {
    "crag-trivial": (2, "trivial"),
    "crag-trivial-1": (1, "trivial"),
    "crag": (2, "corrective"),
    "crag-1": (1, "corrective"),
}
"""Our fleet's rows: worker processes and graph (``bench.fleet --graph``) by name."""


@dataclass
class Row:
    """One system's line of the table (``error`` instead of figures when it could not run)."""

    system: str
    burst_per_s: float | None = None
    p50_ms: float | None = None
    p95_ms: float | None = None
    thread_s: float | None = None
    thread_kept: str = ""
    thread_fifo: bool | None = None
    cpu_ms: float | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)


def main() -> None:
    """Install and run each peer, run our fleet, print one table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--burst", type=int, default=300)
    parser.add_argument("--sequential", type=int, default=50)
    parser.add_argument("--same-thread", type=int, default=20)
    parser.add_argument(
        "--only",
        nargs="*",
        help=f"systems to run: langhost aegra {' '.join(OURS)} (default: all)",
    )
    parser.add_argument("--reinstall", action="store_true", help="rebuild the peers' venvs")
    args = parser.parse_args()
    settings = Settings()
    try:
        check_key(settings)
    except BenchSetupError as exc:
        sys.exit(f"bench.peers: {exc}")
    want = set(args.only or ["langhost", "aegra", *OURS])
    rows: list[Row] = []
    for peer in PEERS:
        if peer.name in want:
            rows.append(run_peer(peer, settings, args))
            print(_line(rows[-1]), flush=True)
    for name, (concurrency, graph) in OURS.items():
        if name in want:
            rows.append(run_ours(settings, args, concurrency, graph))
            print(_line(rows[-1]), flush=True)
    print()
    print_table(rows, args)


def run_peer(peer: Peer, settings: Settings, args: argparse.Namespace) -> Row:
    """Install, start and measure one peer; a failure becomes the row's ``error``."""
    row = Row(peer.label)
    try:
        install(peer, args.reinstall)
        project = write_project(peer)
        db_url = peer_database(settings, peer.name)
        redis_url = _redis_db(settings.redis_url, peer.redis_db) if peer.redis_db else ""
        port = _free_port()
        log = (CACHE / f"{peer.name}.serve.log").open("w")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CRAG_", "VIRTUAL_ENV"))}
        server = subprocess.Popen(
            peer.command(peer.venv, port),
            cwd=project,
            env=env | peer.env(db_url, redis_url) | {"PATH": f"{peer.venv}/bin:{env['PATH']}"},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # `aegra serve` runs uvicorn as a child: stop them both
        )
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(server, base, CACHE / f"{peer.name}.serve.log")
            with httpx.Client(base_url=base, timeout=120) as http:
                measure_peer(http, server.pid, row, args)
        finally:
            _stop_group(server)
    except BenchSetupError as exc:
        row.error = str(exc)
    except Exception as exc:
        row.error = f"{type(exc).__name__}: {exc}"
    return row


def _stop_group(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (it and its children), SIGKILL after 30 s."""
    import signal

    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def install(peer: Peer, reinstall: bool) -> None:
    """Create the peer's venv and pip-install its packages from PyPI (once).

    Raises:
        BenchSetupError: pip failed; the message holds the end of its output.
    """
    stamp = peer.venv / ".bench-installed"
    if stamp.exists() and stamp.read_text() == " ".join(peer.packages) and not reinstall:
        return
    shutil.rmtree(peer.venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(peer.venv)], check=True)
    pip = subprocess.run(
        [str(peer.venv / "bin/pip"), "install", "--disable-pip-version-check", "-q",
         *peer.packages],
        capture_output=True, text=True,
    )  # fmt: skip
    if pip.returncode != 0:
        tail = (pip.stdout + pip.stderr).strip().splitlines()[-5:]
        raise BenchSetupError(f"pip install {' '.join(peer.packages)} failed: {' | '.join(tail)}")
    stamp.write_text(" ".join(peer.packages))


def write_project(peer: Peer) -> Path:
    """The peer's project folder: the trivial graph and its config file naming it."""
    project = CACHE / f"{peer.name}-project"
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "bench" / "peer_graph.py", project / "peer_graph.py")
    config = {"dependencies": ["."], "graphs": {"trivial": "./peer_graph.py:graph"}}
    (project / peer.config_file).write_text(json.dumps(config, indent=2))
    return project


def peer_database(settings: Settings, name: str) -> str:
    """``postgresql://…/peers_<name>``, created in the settings' Postgres if missing."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(settings.database_url)
    db = f"peers_{name}"
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            exists = conn.scalar(text("select 1 from pg_database where datname = :d"), {"d": db})
            if not exists:
                conn.execute(text(f'CREATE DATABASE "{db}"'))
    finally:
        engine.dispose()
    return url.set(drivername="postgresql", database=db).render_as_string(hide_password=False)


def wait_ready(server: subprocess.Popen[bytes], base: str, log: Path) -> None:
    """Wait until the server answers ``/ok`` (or ``/health``).

    Raises:
        BenchSetupError: It exited, or did not answer within :data:`START_TIMEOUT_S`; the
            message holds the end of its log.
    """
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise BenchSetupError(f"the server exited ({server.returncode}): {_tail(log)}")
        for path in ("/ok", "/health"):
            try:
                if httpx.get(base + path, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
        time.sleep(0.5)
    raise BenchSetupError(f"the server did not answer in {START_TIMEOUT_S:.0f} s: {_tail(log)}")


def _tail(log: Path, lines: int = 6) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(line.strip()[:300] for line in text[-lines:])


def measure_peer(http: httpx.Client, pid: int, row: Row, args: argparse.Namespace) -> None:
    """The four measurements through the LangGraph server API both peers serve."""
    api = PeerApi(http)
    for _ in range(3):  # warm-up
        api.join(*api.run(api.thread(), "warm-up"))
    # burst: threads made first (our jobs make theirs on the way; a peer's is one more call)
    threads = [api.thread() for _ in range(args.burst)]
    cpu0, started = tree_cpu_s(pid), time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        runs = list(pool.map(lambda t: api.run(t, "q"), threads))
    for run in runs:
        api.join(*run)
    elapsed = time.perf_counter() - started
    row.burst_per_s = args.burst / elapsed
    row.cpu_ms = (tree_cpu_s(pid) - cpu0) * 1000 / args.burst
    # one at a time
    latencies = []
    for _ in range(args.sequential):
        thread = api.thread()
        t = time.perf_counter()
        api.join(*api.run(thread, "q"))
        latencies.append((time.perf_counter() - t) * 1000)
    row.p50_ms, row.p95_ms = _pcts(latencies)
    # one thread
    thread = api.thread()
    questions = [f"q{i}" for i in range(args.same_thread)]
    t = time.perf_counter()
    runs = [api.run(thread, q, multitask_strategy="enqueue") for q in questions]
    for run in runs:
        api.join(*run)
    row.thread_s = time.perf_counter() - t
    turns = api.state(thread).get("turns") or []
    row.thread_kept = f"{len([q for q in turns if q in questions])}/{args.same_thread}"
    row.thread_fifo = turns == questions


class PeerApi:
    """The few calls of the LangGraph server API (threads, runs, join, state) used here."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def thread(self) -> str:
        """Create a thread; returns its id."""
        reply = self.http.post("/threads", json={"metadata": {"bench": "peers"}})
        reply.raise_for_status()
        return str(reply.json()["thread_id"])

    def run(self, thread: str, question: str, **options: Any) -> tuple[str, str]:
        """Enqueue a run of the trivial graph; returns ``(thread_id, run_id)``."""
        body = {"assistant_id": "trivial", "input": {"question": question}, **options}
        reply = self.http.post(f"/threads/{thread}/runs", json=body)
        reply.raise_for_status()
        return thread, str(reply.json()["run_id"])

    def join(self, thread: str, run: str) -> None:
        """Wait until the run has finished (the server's long-poll ``join``)."""
        reply = self.http.get(f"/threads/{thread}/runs/{run}/join")
        reply.raise_for_status()

    def state(self, thread: str) -> dict[str, Any]:
        """The thread's current state values."""
        reply = self.http.get(f"/threads/{thread}/state")
        reply.raise_for_status()
        return dict(reply.json().get("values") or {})


def run_ours(settings: Settings, args: argparse.Namespace, concurrency: int, graph: str) -> Row:
    """Our fleet with ``concurrency`` worker processes on ``graph`` (:data:`OURS`)."""
    from bench.fleet import running_fleet

    what = (
        "the peers' five-node graph"
        if graph == "trivial"
        else "full corrective graph, instant model"
    )
    row = Row(f"crag-fleet, {concurrency} worker process{'es' * (concurrency > 1)}, {what}")
    try:
        with running_fleet(settings, concurrency, graph) as fleet:
            burst = fleet.burst(args.burst)
            row.burst_per_s, row.cpu_ms = burst.jobs_per_s, burst.cpu_ms_per_job
            seq = fleet.sequential(args.sequential)
            row.p50_ms, row.p95_ms = seq.pct(50), seq.pct(95)
            one = fleet.same_thread(args.same_thread)
            row.thread_s = one.elapsed_s
            row.thread_kept = f"{one.extra['kept']}/{args.same_thread}"
            row.thread_fifo = one.extra["fifo"]
    except BenchSetupError as exc:
        row.error = str(exc)
    return row


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    """Print the Markdown table of all systems."""
    print(
        f"| system (same machine, same run) | burst of {args.burst}, runs/s | one at a time "
        f"({args.sequential}), p50 / p95 ms | {args.same_thread} on one thread: s, kept, FIFO "
        "| CPU ms per run (burst) |"
    )
    print("| --- | ---: | ---: | --- | ---: |")
    for row in rows:
        print(_line(row))


def _line(row: Row) -> str:
    if row.error:
        return f"| {row.system} | not run: {row.error.replace('|', '/')} | | | |"
    fifo = {True: "FIFO", False: "not FIFO", None: ""}[row.thread_fifo]
    return (
        f"| {row.system} | {row.burst_per_s:.1f} | {row.p50_ms:.0f} / {row.p95_ms:.0f} | "
        f"{row.thread_s:.2f} s, {row.thread_kept} kept, {fifo} | {row.cpu_ms:.0f} |"
    )


def _pcts(values: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(values, n=100)
    return q[49], q[94]


def _redis_db(url: str, db: int) -> str:
    base = url.rsplit("/", 1)[0] if url.count("/") > 2 else url
    return f"{base}/{db}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    main()
