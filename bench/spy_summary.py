"""Sort py-spy's raw samples of a worker into the kinds of work a job does.

``py-spy record -f raw`` writes one line per distinct stack, ``frame;frame;… count``, root
first. Each stack is put in the first :data:`KINDS` entry one of whose markers occurs in
it (so a socket read under the checkpointer counts as the checkpointer, not as I/O), and
the table gives each kind's share of the samples. Sampled with ``--gil`` (as
``bench.fleet --spy`` does), a sample is a thread holding the GIL: shares are of Python CPU.

    .venv/bin/python -m bench.spy_summary .bench/prof/worker.txt [--only answer_question]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

KINDS: list[tuple[str, tuple[str, ...]]] = [
    ("checkpoints: encryption (AES-GCM)", ("KeyRing.encrypt", "KeyRing.decrypt")),
    ("checkpoints: serialise", ("JsonPlusSerializer", "ormsgpack", "_msgpack")),
    ("checkpoints: write (put, put_writes)", ("Saver.put", "PostgresSaver.put", "put_writes")),
    ("checkpoints: read (get_tuple)", ("get_tuple", "get_state", "Saver.list")),
    ("app tables: SQLAlchemy + psycopg", ("sqlalchemy/",)),
    (
        "thread lock, line, wake-up (Redis)",
        ("workers/runtime/lock.py", "contracts/line.py", "core/turns.py"),
    ),
    ("progress events (Redis)", ("core/progress.py",)),
    ("other Redis", ("redis/",)),
    ("Elasticsearch", ("elasticsearch/", "elastic_transport/", "corpus/")),
    (
        "model client (LangChain, OpenAI SDK, HTTP)",
        ("langchain_openai/", "openai/", "language_models/", "httpx"),
    ),
    ("tracing (OpenTelemetry)", ("opentelemetry/",)),
    (
        "signature, contracts, outcome shaping",
        ("contracts/signing", "contracts/jobs", "core/outcomes", "pydantic"),
    ),
    ("graph nodes (pipeline/)", ("pipeline/",)),
    ("LangGraph engine (pregel)", ("langgraph/",)),
    ("task body, other", ("answer_question",)),
    ("Celery, kombu, billiard (outside the task)", ("celery/", "kombu/", "billiard/")),
]


def summarise(path: Path, only: str | None = None) -> tuple[Counter[str], int]:
    """Samples per kind in a raw py-spy file (stacks containing ``only``, if given)."""
    kinds: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit() or (only and only not in stack):
            continue
        n = int(count)
        total += n
        for kind, markers in KINDS:
            if any(m in stack for m in markers):
                kinds[kind] += n
                break
        else:
            kinds["other"] += n
    return kinds, total


def main() -> None:
    """Print the table of kinds of work for a raw py-spy file."""
    parser = argparse.ArgumentParser()
    parser.add_argument("raw", type=Path)
    parser.add_argument("--only", help="keep stacks containing this frame text")
    parser.add_argument("--jobs", type=int, default=0, help="jobs sampled: adds ms of CPU/job")
    parser.add_argument("--rate", type=int, default=100, help="py-spy's samples per second")
    args = parser.parse_args()
    kinds, total = summarise(args.raw, args.only)
    per_job = " | CPU ms/job" if args.jobs else ""
    rule = " ---: |" if args.jobs else ""
    print(f"| kind of work | share of CPU samples{per_job} |\n| --- | ---: |{rule}")
    for kind, n in kinds.most_common():
        ms = f" | {n * 1000 / args.rate / args.jobs:.1f}" if args.jobs else ""
        print(f"| {kind} | {n / total:.0%}{ms} |")
    print(f"\n{total} samples")


if __name__ == "__main__":
    main()
