"""Answer-cost benchmark: one question at a time through the graph, in process, real model.

What a question costs on this machine with the configured model (by default the local
Qwen2.5-Coder-1.5B server): wall time, model calls, prompt tokens (and how many the
server reused from its prompt cache), output tokens, per kind of call; then p50/p95.
No queue, lock or webhook (``python -m bench.fleet`` measures those); the graph, the
tenant's Elasticsearch index and the model are the real ones. Web search is off.

    .venv/bin/python -m bench.answer --tenant pgdocs "What is the default value of max_connections?"
    .venv/bin/python -m bench.answer --tenant pgdocs --dev pgdocs --limit 5

``--dev CORPUS`` takes the answerable questions of ``evaluation/data/CORPUS.dev.jsonl``
(never the held-out file). Prints one block per question and a summary; ``--json`` writes
the per-question records.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from corpus import TenantRetriever, index_name, make_es_client
from corpus.index import vector_dims
from pipeline.accounting import calls_by_kind, made, tokens_by_kind
from pipeline.deps import Deps
from pipeline.graph import RECURSION_LIMIT, build_graph
from redaction import build_redactor
from workers.runtime.models import make_embeddings_for, make_models
from workers.runtime.resources import limits_from
from workers.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
ANSWERABLE = {"answerable", "multi_hop", "paraphrase"}


def dev_questions(corpus: str, limit: int) -> list[str]:
    """Answerable questions of the dev split of ``corpus`` (the held-out split is not read)."""
    path = ROOT / "evaluation" / "data" / f"{corpus}.dev.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r["question"] for r in rows if r["kind"] in ANSWERABLE][:limit]


def run_one(graph: Any, deps: Deps, question: str) -> dict[str, Any]:
    """Run one turn; return its record (status, seconds, calls, tokens, answer, path)."""
    config: Any = {
        "configurable": {"thread_id": uuid.uuid4().hex},
        "recursion_limit": RECURSION_LIMIT,
    }
    started = time.perf_counter()
    state: dict[str, Any] = {}
    for update in graph.stream({"question": question}, config, context=deps, stream_mode="values"):
        state = update
    seconds = time.perf_counter() - started
    calls = state.get("calls", [])
    kinds = tokens_by_kind(calls)
    outcome = state["outcome"]
    return {
        "question": question,
        "status": outcome["status"],
        "reason": outcome["reason"],
        "answer": outcome["answer"],
        "citations": [c["locator"].rsplit("/", 1)[-1] for c in outcome["citations"]],
        "detail": outcome["detail"],
        "path": state.get("trace", []),
        "seconds": round(seconds, 1),
        "model_calls": len(made(calls)),
        "calls_by_kind": calls_by_kind(calls),
        "tokens_by_kind": kinds,
        "prompt_tokens": sum(t["input"] for t in kinds.values()),
        "cached_prompt_tokens": sum(t["cached"] for t in kinds.values()),
        "output_tokens": sum(t["output"] for t in kinds.values()),
    }


def _print(record: dict[str, Any]) -> None:
    print(f"\n{record['question']}")
    print(
        f"  {record['status']} {record['reason'] or ''}  {record['seconds']} s  "
        f"calls {record['model_calls']}  prompt {record['prompt_tokens']} "
        f"(cached {record['cached_prompt_tokens']})  output {record['output_tokens']}"
    )
    for kind, t in record["tokens_by_kind"].items():
        n = record["calls_by_kind"].get(kind, 0)
        print(f"    {kind:<10} x{n}: prompt {t['input']} (cached {t['cached']}), out {t['output']}")
    print(f"  path: {' → '.join(record['path'])}")
    if record["status"] == "answered":
        print(f"  answer: {record['answer']}  {record['citations']}")
    else:
        print(f"  detail: {record['detail'][:300]}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print each question and the percentiles."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("questions", nargs="*")
    parser.add_argument("--tenant", default="pgdocs")
    parser.add_argument("--dev", metavar="CORPUS", help="answerable dev questions of CORPUS")
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the per-question records here")
    parser.add_argument(
        "--retrieval",
        choices=["bm25", "hybrid"],
        help="default: hybrid when the tenant's index holds vectors (as `make demo` builds it)",
    )
    args = parser.parse_args(argv)
    questions = list(args.questions) + (dev_questions(args.dev, args.limit) if args.dev else [])
    if not questions:
        parser.error("give questions, or --dev CORPUS")
    settings = Settings()
    es = make_es_client(settings.elasticsearch_url)
    retrieval = args.retrieval or (
        "hybrid" if vector_dims(es, index_name(args.tenant, settings.index_prefix)) else "bm25"
    )
    embeddings = make_embeddings_for(settings) if retrieval == "hybrid" else None
    retriever = TenantRetriever(
        es, args.tenant, index_prefix=settings.index_prefix, embeddings=embeddings
    )
    if retriever.count() == 0:
        print(f"tenant {args.tenant!r} has no chunks: run `make demo` or `crag ingest` first")
        return 2
    deps = Deps(
        tenant_id=args.tenant,
        models=make_models(settings),
        retriever=retriever,
        web_search=None,
        redactor=build_redactor(),
        limits=limits_from(settings),
        allow_web=False,
    )
    graph = build_graph(InMemorySaver())
    print(
        f"model {settings.llm_model} at {settings.llm_base_url}; {retrieval} retrieval; "
        f"{len(questions)} question(s)"
    )
    records = []
    for question in questions:
        records.append(run_one(graph, deps, question))
        _print(records[-1])
    seconds = sorted(r["seconds"] for r in records)
    prompts = sorted(r["prompt_tokens"] - r["cached_prompt_tokens"] for r in records)
    answered = sum(r["status"] == "answered" for r in records)
    p95 = seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))]
    print(
        f"\n{len(records)} questions, {answered} answered; seconds p50 "
        f"{statistics.median(seconds):.1f} p95 {p95:.1f}; prompt tokens read (not cached) "
        f"p50 {statistics.median(prompts):.0f}"
    )
    if args.json:
        args.json.write_text(json.dumps(records, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
