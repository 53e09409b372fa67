"""What the web-search provider would receive, on the egress corpus (``tests/data/egress``).

Per personal-data type, how many labelled values were removed from the search text; how
many labelled technical terms survive verbatim (personal and technical questions); the
redaction time per query (p50/p95). The corpus was written without seeing the redactor;
its ``heldout`` part is reported in aggregate only (no value or term is printed), so it
stays unseen while the redactor is tuned on ``dev``::

    .venv/bin/python -m bench.egress_eval                      # dev, with every miss
    .venv/bin/python -m bench.egress_eval --split heldout      # figures only
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from redaction import build_redactor
from redaction.evaluate import measure_recall, measure_terms
from redaction.pii_corpus import load_questions

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "egress"


def main(argv: list[str] | None = None) -> None:
    """Measure one split and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--split", choices=["dev", "heldout"], default="dev")
    args = parser.parse_args(argv)
    personal = load_questions(DATA / f"personal.{args.split}.jsonl")
    technical = load_questions(DATA / f"technical.{args.split}.jsonl")
    redactor = build_redactor()
    show = args.split == "dev"

    recall = measure_recall(redactor, personal)
    print(f"split {args.split}: {len(personal)} personal, {len(technical)} technical questions\n")
    print(f"{'type':<16}{'removed':>8}{'total':>7}")
    for row in recall.by_type:
        if row.total:
            print(f"{row.type:<16}{row.caught:>8}{row.total:>7}")
    caught = sum(r.caught for r in recall.by_type)
    total = sum(r.total for r in recall.by_type)
    print(f"{'all':<16}{caught:>8}{total:>7}  ({caught / total:.1%})")
    for miss in recall.misses if show else ():
        print(f"  MISS {miss.item.type} {miss.item.value!r} -> {miss.search_text!r}")

    for name, questions in (("personal", personal), ("technical", technical)):
        terms = measure_terms(redactor, questions)
        print(f"\nterms kept, {name} questions: {terms.kept}/{terms.total} ({terms.share:.1%})")
        for _question, term, sent in terms.lost if show else ():
            print(f"  LOST {term!r} -> {sent!r}")

    times = []
    for question in [*personal, *technical]:
        started = time.perf_counter()
        redactor.redact(question.text)
        times.append((time.perf_counter() - started) * 1000)
    p95 = statistics.quantiles(times, n=20)[18]
    print(f"\nredaction per query: p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms")


if __name__ == "__main__":
    main()
