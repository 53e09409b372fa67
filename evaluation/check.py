"""Check the evaluation dataset against the documents it cites.

``python -m evaluation.check [FILES...]`` (default: every shipped file) loads the entries,
loads each corpus they need once, exactly as the product indexes it
(:func:`corpus.loaders.collect_files` and :func:`corpus.loaders.load_file`), and checks:

- every cited page exists under the corpus root;
- every keyword group occurs in the page (any one of its alternatives, case-insensitive);
  for a multi-hop entry every group occurs in one of its two pages and each page holds at
  least one group (so both are needed);
- a paraphrase question contains none of its keyword alternatives;
- every absent term of an unanswerable entry occurs in no document of the corpus;
- ids are unique.

It prints one line per problem, then a summary of the entries per corpus, split and kind,
and exits 1 if anything failed. The check functions are pure (an item and page texts in,
problem strings out) so tests can run them on a tiny corpus.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from corpus.errors import IngestError
from corpus.loaders import collect_files, load_file
from evaluation.dataset import (
    CORPORA,
    CORPUS_PACKAGES,
    CORPUS_ROOTS,
    KINDS,
    SPLITS,
    DatasetError,
    EvalItem,
    dataset_paths,
    load_items,
)
from evaluation.scoring import occurs

Texts = Mapping[str, str]
"""Page texts of one corpus, keyed by path relative to its root (``/``-separated)."""


class LoadedCorpus:
    """The texts of one corpus as the product indexes them.

    Attributes:
        root: The corpus root directory.
        texts: Each loaded page's text, keyed by its path relative to ``root``.
        errors: Files the loaders could not read, with the reason (not indexed either).
    """

    def __init__(self, root: Path, texts: dict[str, str], errors: dict[str, str]) -> None:
        self.root = root
        self.texts = texts
        self.errors = errors


def load_corpus(root: Path) -> LoadedCorpus:
    """Load every supported file under ``root`` through the product's loaders.

    Args:
        root: A corpus root directory.

    Returns:
        The page texts keyed by relative path, and the files that failed to load.

    Raises:
        IngestError: ``root`` does not exist.
    """
    base = Path(root).resolve()
    texts: dict[str, str] = {}
    errors: dict[str, str] = {}
    for path in collect_files([base]).files:
        key = _relative(path, base)
        try:
            texts[key] = load_file(path).text
        except IngestError as exc:
            errors[key] = str(exc)
    return LoadedCorpus(base, texts, errors)


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:  # a symlink the loaders resolved to a file outside the root
        return path.as_posix()


def _holds(text: str, group: Sequence[str]) -> bool:
    """The scorer's own match (:func:`evaluation.scoring.occurs`): whole numbers only."""
    return any(occurs(alternative, text) for alternative in group)


def check_pages(item: EvalItem, texts: Texts) -> list[str]:
    """Report cited pages that are not among the corpus's loaded pages.

    Args:
        item: The entry.
        texts: The corpus's page texts by relative path.

    Returns:
        One problem line per missing page.
    """
    return [
        f"{item.id}: page {page!r} not found in {item.corpus}" for page in _missing(item, texts)
    ]


def _missing(item: EvalItem, texts: Texts) -> list[str]:
    return [page for page in item.pages if page not in texts]


def check_keywords(item: EvalItem, texts: Texts) -> list[str]:
    """Report keyword groups the cited pages do not support.

    A single-page entry needs every group in its page. A multi-hop entry needs every group
    in one of its pages and at least one group in each page. Pages that do not exist are
    left to :func:`check_pages`.

    Args:
        item: The entry.
        texts: The corpus's page texts by relative path.

    Returns:
        One problem line per unsupported group or unneeded page.
    """
    if not item.answer_keywords or _missing(item, texts):
        return []
    problems: list[str] = []
    pages = {page: texts[page] for page in item.pages}
    where = " or ".join(repr(page) for page in pages)
    for group in item.answer_keywords:
        if not any(_holds(text, group) for text in pages.values()):
            problems.append(f"{item.id}: keyword group {group} does not occur in {where}")
    if item.kind == "multi_hop":
        for page, text in pages.items():
            if not any(_holds(text, group) for group in item.answer_keywords):
                problems.append(
                    f"{item.id}: multi_hop page {page!r} holds no keyword group "
                    "(both pages must be needed)"
                )
    return problems


def check_paraphrase(item: EvalItem) -> list[str]:
    """Report keyword alternatives that a paraphrase question gives away.

    Args:
        item: The entry (other kinds pass).

    Returns:
        One problem line per keyword alternative found in the question.
    """
    if item.kind != "paraphrase":
        return []
    question = item.question.lower()
    return [
        f"{item.id}: paraphrase question contains the keyword {alternative!r}"
        for group in item.answer_keywords
        for alternative in group
        if alternative.lower() in question
    ]


def check_absent_terms(item: EvalItem, texts: Texts) -> list[str]:
    """Report absent terms of an unanswerable entry that some document does contain.

    Args:
        item: The entry (other kinds pass).
        texts: Every page text of the corpus by relative path.

    Returns:
        One problem line per term found, naming up to three pages that contain it.
    """
    problems: list[str] = []
    for term in item.absent_terms:
        needle = term.lower()
        found = [page for page, text in texts.items() if needle in text.lower()]
        if found:
            shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
            problems.append(f"{item.id}: absent term {term!r} occurs in {shown}")
    return problems


def check_unique_ids(items: Iterable[EvalItem]) -> list[str]:
    """Report ids used by more than one entry.

    Args:
        items: The entries.

    Returns:
        One problem line per duplicated id.
    """
    counts = Counter(item.id for item in items)
    return [f"{item_id}: id used by {n} entries" for item_id, n in counts.items() if n > 1]


def check_item(item: EvalItem, texts: Texts) -> list[str]:
    """Run every per-entry check against one corpus's texts.

    Args:
        item: The entry.
        texts: Every page text of the entry's corpus by relative path.

    Returns:
        The problem lines, empty when the entry holds.
    """
    return (
        check_pages(item, texts)
        + check_keywords(item, texts)
        + check_paraphrase(item)
        + check_absent_terms(item, texts)
    )


def check_items(items: Sequence[EvalItem], corpora: Mapping[str, Texts]) -> list[str]:
    """Check entries against their corpora.

    Args:
        items: The entries.
        corpora: Page texts by corpus name; an entry whose corpus is missing is a problem.

    Returns:
        Every problem line, ids first, then entry by entry.
    """
    problems = check_unique_ids(items)
    for item in items:
        texts = corpora.get(item.corpus)
        if texts is None:
            problems.append(f"{item.id}: corpus {item.corpus} is not loaded")
        else:
            problems.extend(check_item(item, texts))
    return problems


def summary(items: Sequence[EvalItem]) -> list[str]:
    """Describe the entries per corpus and split, with their count per kind.

    Args:
        items: The entries.

    Returns:
        One line per corpus and split present, then a total line.
    """
    counts: Counter[tuple[str, str, str]] = Counter(
        (item.corpus, item.split, item.kind) for item in items
    )
    lines: list[str] = []
    for corpus in CORPORA:
        for split in SPLITS:
            total = sum(counts[(corpus, split, kind)] for kind in KINDS)
            if total:
                kinds = ", ".join(f"{kind} {counts[(corpus, split, kind)]}" for kind in KINDS)
                lines.append(f"{corpus:<8} {split:<8} {total:>3}  ({kinds})")
    lines.append(f"{len(items)} entries")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the check from the command line.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 when every entry holds, 1 otherwise.
    """
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.check",
        description="Check the evaluation dataset's pages, keywords and absent terms "
        "against the corpora as the product indexes them.",
    )
    parser.add_argument(
        "files", nargs="*", type=Path, help="JSONL files (default: every shipped file)"
    )
    parser.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="CORPUS=DIR",
        help="read a corpus from DIR instead of its default root (repeatable)",
    )
    args = parser.parse_args(argv)
    roots = dict(CORPUS_ROOTS)
    for spec in args.root:
        name, sep, directory = spec.partition("=")
        if not sep or name not in CORPORA:
            parser.error(f"--root {spec!r}: expected CORPUS=DIR with CORPUS in {CORPORA}")
        roots[name] = Path(directory)

    paths = args.files or dataset_paths()
    try:
        items = load_items(paths)
    except DatasetError as exc:
        print(exc)
        print(f"FAILED: {len(exc.problems)} problem(s) in the dataset files")
        return 1

    problems: list[str] = []
    corpora: dict[str, Texts] = {}
    for name in sorted({item.corpus for item in items}):
        root = roots[name]
        if not root.is_dir():
            problems.append(
                f"corpus {name}: {root} does not exist "
                f"(install the Debian package {CORPUS_PACKAGES[name]})"
            )
            continue
        loaded = load_corpus(root)
        corpora[name] = loaded.texts
        print(f"corpus {name}: {len(loaded.texts)} pages from {loaded.root}")
        for page, error in loaded.errors.items():
            print(f"corpus {name}: not indexed: {page}: {error}")
    problems += [
        problem
        for problem in check_items(items, corpora)
        if not problem.endswith("is not loaded")  # its missing root is reported already
    ]
    for problem in problems:
        print(problem)
    for line in summary(items):
        print(line)
    if problems:
        print(f"FAILED: {len(problems)} problem(s)")
        return 1
    print("OK: every entry holds against its corpus")
    return 0


if __name__ == "__main__":
    sys.exit(main())
