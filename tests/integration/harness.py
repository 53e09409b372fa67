"""Worker processes and private service instances for fleet and fault tests.

:func:`worker_fleet` starts real ``crag worker`` processes (each its own Celery worker) with
the given environment. :class:`ScratchRedis` and :class:`ScratchPostgres` are real, private
instances on free ports, so a fault test can stop and restart them without touching the
services the rest of the suite uses. Postgres refuses to run as root, so as root the
instance runs as the unprivileged user ``infra/up`` created (``CRAG_INFRA_USER``, ``crag``).
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import Celery

ROOT = Path(__file__).parents[2]
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (released on return)."""
    with refused_port() as port:
        return port


@contextmanager
def refused_port() -> Iterator[int]:
    """A TCP port on 127.0.0.1, held bound but not listening for the ``with`` block.

    Connections to it are refused, and no server started in the block (a webhook receiver,
    a stand-in on port 0) can be given it, as it can be a port from :func:`free_port`: a
    worker's calls to a "down" model once reached the test's own webhook receiver that way.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def wait_until(check: object, what: str, timeout_s: float = 30) -> None:
    """Poll ``check()`` until it is truthy; fail the test after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except Exception:  # not up yet
            pass
        time.sleep(0.1)
    pytest.fail(f"{what} not ready after {timeout_s}s")


@contextmanager
def worker_fleet(
    env: Mapping[str, str], log_dir: Path, workers: int = 1, concurrency: int = 1
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Start ``workers`` worker processes with ``concurrency`` slots each; stop them after.

    ``env`` is the whole environment of the workers (``CRAG_*`` settings included).
    """
    suffix = uuid.uuid4().hex[:6]
    procs: list[subprocess.Popen[bytes]] = []
    logs: list[Path] = []
    try:
        for n in range(workers):
            log = log_dir / f"worker-{n}-{suffix}.log"
            with log.open("w") as out:
                procs.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "workers.cli",
                            "worker",
                            "--concurrency",
                            str(concurrency),
                            "--hostname",
                            f"w{n}-{suffix}@%h",
                        ],
                        env=dict(env),
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        cwd=ROOT,
                    )
                )
            logs.append(log)
        for proc, log in zip(procs, logs, strict=True):
            _wait_ready(proc, log)
        yield procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()


def _wait_ready(proc: subprocess.Popen[bytes], log: Path, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"worker exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        if " ready." in log.read_text():
            return
        time.sleep(0.2)
    pytest.fail(f"worker not ready after {timeout_s}s:\n{log.read_text()[-3000:]}")


def _as_service_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    user = os.environ.get("CRAG_INFRA_USER", "crag")
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", *cmd]


def _give_to_service_user(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, os.environ.get("CRAG_INFRA_USER", "crag"))


class ScratchRedis:
    """A private redis-server with an append-only file, as ``infra/up`` configures Redis."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start (or start again) on the same port and data directory."""
        from redis import Redis

        self._proc = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: Redis.from_url(self.url).ping(), f"redis on {self.port}")

    def stop(self) -> None:
        """Shut down the way an operator restart does (SIGTERM: the AOF is flushed)."""
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=30)
            self._proc = None


class ScratchPostgres:
    """A private Postgres 15 cluster (trust auth on 127.0.0.1, database ``postgres``).

    Its files live in a fresh directory under the system temp dir (pytest's own is private
    to root, where the service user cannot reach); :meth:`remove` deletes them.
    """

    def __init__(self) -> None:
        directory = Path(tempfile.mkdtemp(prefix="crag-scratch-pg-"))
        self.dir = directory
        self.data = directory / "pgdata"
        self.log = directory / "postgres.log"
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        _give_to_service_user(directory)
        subprocess.run(
            _as_service_user(
                [str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust"]
            ),
            check=True,
            capture_output=True,
        )

    def _ctl(self, *args: str) -> None:
        subprocess.run(
            _as_service_user([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log)])
            + list(args),
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        """Start on the same port and data directory; returns once it accepts connections."""
        self._ctl(
            "-o",
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''",
            "-W",
            "start",
        )
        import psycopg

        dsn = self.url.replace("postgresql+psycopg://", "postgresql://")
        wait_until(lambda: psycopg.connect(dsn).close() is None, f"postgres on {self.port}")

    def stop(self) -> None:
        """Stop fast: open connections are cut, as when a database host goes away.

        Returns once the server is down (``pg_ctl`` waits): a caller that goes on as if it
        were gone must not race a shutdown still under way, in which a busy worker can
        still commit.
        """
        self._ctl("-m", "fast", "stop")

    def remove(self) -> None:
        """Stop if running and delete the cluster's files."""
        subprocess.run(
            _as_service_user(
                [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
            ),
            capture_output=True,
        )
        shutil.rmtree(self.dir, ignore_errors=True)


@functools.lru_cache(maxsize=8)
def producer(redis_url: str) -> Celery:
    """A Celery app that only sends jobs, to the broker at ``redis_url`` (not made current);
    one per broker, reused."""
    from workers.celery.app import producer_app
    from workers.settings import Settings

    return producer_app(Settings(redis_url=redis_url))
