"""Redaction quality on the PII corpus: recall per type and false redactions.

Loads the real redactor (offline, ~3 s) and runs ``tests/data/pii/personal.jsonl`` (questions
carrying personal data) and ``tests/data/pii/technical.jsonl`` (ordinary technical questions)
through it. Run from the repository root:

    .venv/bin/python -m bench.redaction_eval
    .venv/bin/python -m bench.redaction_eval --threshold 0.5 --add DATE_TIME --add LOCATION

``--add``/``--drop`` change the entity set, to measure what an entity left out would cost.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from redaction import DEFAULT_ENTITIES, DEFAULT_SCORE_THRESHOLD, PresidioRedactor, build_redactor
from redaction.evaluate import NoiseReport, RecallReport, measure_false_redactions, measure_recall
from redaction.pii_corpus import load_questions

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "pii"


def main() -> None:
    """Parse arguments, measure, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=DEFAULT_SCORE_THRESHOLD)
    parser.add_argument("--add", action="append", default=[], help="entity type to add")
    parser.add_argument("--drop", action="append", default=[], help="entity type to drop")
    parser.add_argument("--personal", type=Path, default=DATA / "personal.jsonl")
    parser.add_argument("--technical", type=Path, default=DATA / "technical.jsonl")
    args = parser.parse_args()

    entities = [e for e in (*DEFAULT_ENTITIES, *args.add) if e not in args.drop]
    base = build_redactor()
    redactor = PresidioRedactor(base.analyzer, entities=entities, score_threshold=args.threshold)
    print(f"threshold {args.threshold}; entities {', '.join(entities)}\n")
    print_recall(measure_recall(redactor, load_questions(args.personal)))
    print()
    print_noise(measure_false_redactions(redactor, load_questions(args.technical)))


def print_recall(report: RecallReport) -> None:
    """Print recall per type, then every value that reached the provider."""
    print(f"{'type':<16}{'caught':>8}{'total':>7}{'recall':>9}")
    for row in report.by_type:
        if row.total:  # the corpus may not carry every type
            print(f"{row.type:<16}{row.caught:>8}{row.total:>7}{row.recall:>9.1%}")
    caught = sum(row.caught for row in report.by_type)
    total = sum(row.total for row in report.by_type)
    print(f"{'all':<16}{caught:>8}{total:>7}{caught / total if total else 1.0:>9.1%}")
    for miss in report.misses:
        print(
            f"  MISS {miss.item.type} {miss.item.value!r}: {miss.survived} in {miss.search_text!r}"
        )


def print_noise(report: NoiseReport) -> None:
    """Print the false-redaction rate and what was removed from each flagged question."""
    print(
        f"false redactions: {len(report.flagged)}/{report.total} technical questions "
        f"({report.rate:.1%})"
    )
    for item in report.flagged:
        spans = ", ".join(f"{e}={s!r}" for e, s in zip(item.entities, item.removed, strict=False))
        print(f"  {spans}  <- {item.text!r}")


if __name__ == "__main__":
    main()
