r"""Re-judge the answers an evaluation run shipped with today's verifier prompt.

Each answered outcome of a ``crag eval`` run (its rows in the ``outcomes`` table, found by
the run's thread prefix ``eval-<hex>``) is split back into its claims and their citations;
each claim is shown to the configured verifier with the passage of each cited chunk it
rests on (:mod:`pipeline.evidence`), ``--reps`` times, and counted as passed when every
claim is supported and the answer resolves the question. The eval's JSON says which
answers were right. No retrieval, grading or generation: this isolates the verifier, on
answers the previous verifier already let through.

    .venv/bin/python -m bench.rejudge --threads eval-43d8f0aa \
        --eval .infra/eval/dev-base.json --reps 2

The thread prefix is printed nowhere by ``crag eval``; read it from
``crag thread history`` or the ``jobs`` table (``thread_id`` is ``eval-<hex>-<item id>``).
Use dev runs only: the answers are printed per item.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from corpus import index_name, make_es_client
from pipeline import prompts
from pipeline.documents import Document
from pipeline.evidence import claim_evidence
from pipeline.llm import ask_structured
from pipeline.schemas import Verification
from workers.runtime.models import make_chat_model
from workers.settings import Settings

_CLAIM = re.compile(r"(.+?)\s((?:\[\d+\])+)\.(?:\s|$)")
"""One claim of a published answer: its text, then its markers, then the full stop
(:func:`pipeline.grounding.published_answer`)."""


def claims_of(answer: str) -> list[tuple[str, list[int]]]:
    """``(claim text, source numbers)`` of each claim of a published answer, in order."""
    return [
        (m.group(1).strip() + ".", [int(n) for n in re.findall(r"\d+", m.group(2))])
        for m in _CLAIM.finditer(answer)
    ]


def _chunk(es: Any, index: str, chunk_id: str) -> Document:
    hits = es.search(index=index, query={"term": {"metadata.id": chunk_id}}, size=1)
    source = hits["hits"]["hits"][0]["_source"]
    meta = source["metadata"]
    return Document(
        id=chunk_id,
        text=source["text"],
        title=meta["title"],
        locator=meta["locator"],
        source_type=meta["source_type"],
        updated_at="",
        tenant_id=meta["tenant_id"],
    )


def main(argv: list[str] | None = None) -> int:
    """Re-judge and print one line per answer, then the pass counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--threads", required=True, help="the eval run's thread prefix")
    parser.add_argument("--eval", type=Path, required=True, help="the eval run's JSON")
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args(argv)
    settings = Settings()
    es = make_es_client(settings.elasticsearch_url)
    model = make_chat_model(settings, settings.verifier_model)
    results = json.loads(args.eval.read_text())["results"]
    right = {r["item_id"]: r["correct"] for r in results if r["arm"] == "graph"}
    engine = create_engine(settings.database_url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "select j.thread_id, j.tenant_id, j.question, o.body from outcomes o "
                "join jobs j on j.job_id = o.job_id where j.thread_id like :p "
                "order by o.created_at"
            ),
            {"p": f"{args.threads}-%"},
        ).fetchall()
    passed = {True: 0, False: 0}
    judged = {True: 0, False: 0}
    for thread, tenant, question, body in rows:
        outcome = body if isinstance(body, dict) else json.loads(body)
        item = thread.removeprefix(f"{args.threads}-")
        if outcome["status"] != "answered" or item not in right:
            continue
        ids = {c["n"]: c["id"] for c in outcome["citations"]}
        index = index_name(tenant, settings.index_prefix)
        claims = [
            (claim, [(n, claim_evidence(claim, _chunk(es, index, ids[n]))) for n in cited])
            for claim, cited in claims_of(outcome["answer"])
        ]
        verdicts = []
        for _ in range(args.reps):
            reply, _usage = ask_structured(
                model, Verification, prompts.verifier_messages(question, claims)
            )
            supported = {v.claim for v in reply.claims if v.supported}
            verdicts.append(reply.resolves_question and supported >= set(range(1, len(claims) + 1)))
        ok = right[item]
        passed[ok] += sum(verdicts)
        judged[ok] += len(verdicts)
        print(f"{item:10} {'right' if ok else 'wrong'}  passed {sum(verdicts)}/{len(verdicts)}")
    print(
        f"right answers passed {passed[True]}/{judged[True]}, "
        f"wrong answers passed {passed[False]}/{judged[False]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
