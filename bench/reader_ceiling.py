"""Reader ceiling: the answerable questions the local model gets right given the answer.

For each question of the answerable kinds (``answerable``, ``multi_hop``, ``paraphrase``) of
a split, the model gets only the item's **gold chunks** (one per labelled page,
:func:`evaluation.gold.gold_chunks`: the chunk holding the most answer keywords), no
distractor and no gate, in the naive arm's one plain prompt
(:func:`evaluation.naive.naive_messages`), and its reply is read as the naive arm's is. It
counts replies that state the answer's facts (every keyword group of the item, as the
evaluation's judge reads them, citation markers removed), those that also cite a labelled
page (the judge's *correct*), abstentions, and the rest (wrong or incomplete).

It is a practical ceiling for what a pipeline around this model ships as a correct answer
at temperature 0: retrieval is perfect, nothing is refused, and the model reads nothing
but the passages that hold the answer (the *oracle* setting of Liu et al., "Lost in the
Middle", TACL 2024). A pipeline can still beat it by asking more than once (per hop, or
again after a refusal), which the graph does and which is measured by the evaluation.
For the held-out split it prints the counts only, never an item or an answer. Run with the
services and the model server up (``infra/up``), eval indices ingested (``crag eval``):

    .venv/bin/python -m bench.reader_ceiling --split dev
    .venv/bin/python -m bench.reader_ceiling --split heldout --out ceiling.json
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

from elasticsearch import Elasticsearch

from corpus import TenantRetriever
from evaluation.dataset import dataset_paths, load_items
from evaluation.gold import gold_chunks
from evaluation.naive import cited_locators, is_abstention, naive_messages, reply_text
from evaluation.scoring import is_answerable, matches_page, states_facts
from workers.runtime.models import make_chat_model
from workers.settings import Settings


def main(argv: list[str] | None = None) -> int:
    """Ask the model each question with its gold chunks only; print the counts by kind."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--out", type=Path, help="write the counts (and, for dev, items) here")
    args = parser.parse_args(argv)
    settings = Settings()
    es = Elasticsearch(settings.elasticsearch_url)
    model = make_chat_model(settings)
    items = [i for i in load_items(dataset_paths(split=args.split)) if is_answerable(i.kind)]
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    rows = []
    started = time.monotonic()
    for n, item in enumerate(items, start=1):
        retriever = TenantRetriever(es, f"eval-{item.corpus}", index_prefix=settings.index_prefix)
        sources = gold_chunks(es, retriever, item)
        reply = reply_text(model.invoke(naive_messages(item.question, sources)).content).strip()
        abstained = is_abstention(reply)
        states = not abstained and states_facts(item, reply)
        cites = states and any(matches_page(c, item.pages) for c in cited_locators(reply, sources))
        verdict = (
            "cited" if cites else "stated" if states else "abstained" if abstained else "wrong"
        )
        for kind in (item.kind, "all"):
            counts[kind][verdict] += 1
            counts[kind]["items"] += 1
        if args.split == "dev":
            rows.append({"id": item.id, "kind": item.kind, "verdict": verdict, "reply": reply})
        print(f"{n}/{len(items)} ({time.monotonic() - started:.0f} s)", flush=True)
    print("| kind | items | facts stated | of which the labelled page cited | abstained | wrong |")
    print("| --- | --- | --- | --- | --- | --- |")
    for kind, c in counts.items():
        stated = c["stated"] + c["cited"]
        print(
            f"| {kind} | {c['items']} | {stated} ({stated / c['items']:.0%}) | {c['cited']} "
            f"| {c['abstained']} | {c['wrong']} |"
        )
    if args.out:
        body = {"split": args.split, "counts": {k: dict(v) for k, v in counts.items()}}
        args.out.write_text(json.dumps(body | ({"items": rows} if rows else {}), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
