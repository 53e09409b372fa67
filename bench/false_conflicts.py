"""False conflicts on clean text (issue 12): how often do the conflict checks cry wolf?

Asks "What is the default value of X?" for every setting the PostgreSQL manual describes
under its own term line (``shared_buffers (integer)``; 357 in the Debian 15 manual) against
a tenant that holds the manual and nothing else. The manual agrees with itself, so every
conflict found is a false alarm, which would turn a right answer into a
``conflicting_sources`` abstention. Counted twice, as the graph does it: among the top
``retrieve_k`` chunks of the question (:func:`pipeline.conflicts.find_conflict`), and by the
cross-check search when those agree (:func:`pipeline.corroboration.cross_check`). No model.

    .venv/bin/python -m bench.false_conflicts                  # tenant eval-pgdocs
    .venv/bin/python -m bench.false_conflicts --show           # each alarm, with its values

The tenant is the one ``crag eval`` ingests (``eval-pgdocs``); run ``crag eval --split dev
--retrieval-only`` once first if it does not exist.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from types import SimpleNamespace
from typing import cast

from corpus import TenantRetriever, index_name, make_es_client
from pipeline.conflicts import find_conflict
from pipeline.corroboration import cross_check
from pipeline.deps import Deps
from pipeline.state import CragState
from workers.runtime.resources import limits_from
from workers.settings import Settings

_TERM = re.compile(r"^([a-z_]+) \((?:integer|boolean|enum|string|floating point)\)", re.M)


def settings_described(es: object, index: str) -> list[str]:
    """The settings whose term line some chunk of ``index`` carries, sorted."""
    hits = es.search(  # type: ignore[attr-defined]
        index=index,
        query={"wildcard": {"metadata.locator": "*runtime-config*"}},
        size=10_000,
        source=["text"],
    )["hits"]["hits"]
    return sorted({m.group(1) for h in hits for m in _TERM.finditer(h["_source"]["text"])})


def main(argv: list[str] | None = None) -> int:
    """Run the sweep and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tenant", default="eval-pgdocs")
    parser.add_argument("--show", action="store_true", help="print each false conflict")
    args = parser.parse_args(argv)
    settings = Settings()
    es = make_es_client(settings.elasticsearch_url)
    index = index_name(args.tenant, settings.index_prefix)
    if not es.indices.exists(index=index):
        print(f"no index {index}: run `crag eval --split dev --retrieval-only` first")
        return 2
    retriever = TenantRetriever(es, args.tenant, index_prefix=settings.index_prefix)
    limits = limits_from(settings)
    deps = cast(Deps, SimpleNamespace(retriever=retriever, limits=limits))
    names = settings_described(es, index)
    counts: Counter[str] = Counter()
    for name in names:
        question = f"What is the default value of {name}?"
        docs = retriever.search(question, limits.retrieve_k)
        found = find_conflict(question, docs)
        where = "top-k"
        if found is None:
            state = cast(CragState, {"question": question, "standalone": None})
            update, found = cross_check(state, deps, docs)
            counts["cross-checked"] += "cross_check" in update
            where = "cross-check"
            if found is not None:
                docs = [*docs, *update["cross_check"]["documents"]]
        if found is not None:
            counts[where] += 1
            if args.show:
                print(f"  {where:<11} {found.describe({d['id']: d for d in docs})[:240]}")
    print(
        f"{len(names)} settings; false conflicts among the top {limits.retrieve_k}: "
        f"{counts['top-k']}; from the cross-check search: {counts['cross-check']} "
        f"(of {counts['cross-checked']} searched)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
