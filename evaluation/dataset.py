"""The labelled evaluation questions: their schema and the loader of the shipped JSONL files.

Each line of ``evaluation/data/<corpus>.<split>.jsonl`` is one :class:`EvalItem`. The
loader validates every line (types, the rules of each kind, unique ids, the corpus and split
the file name promises) and reports every problem at once in a :class:`DatasetError` whose
lines read ``file:line (id pg-007): field 'pages': ...``. Whether the keywords and pages
really hold in the documents is checked separately by :mod:`evaluation.check`, which needs
the corpora installed.

The held-out files are for final measurements only: never open them while tuning prompts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

Corpus = Literal["pgdocs", "gitdocs"]
Kind = Literal["answerable", "multi_hop", "paraphrase", "unanswerable", "off_domain"]
Split = Literal["dev", "heldout"]
Route = Literal["vectorstore", "web_search", "direct"]

CORPORA: tuple[str, ...] = get_args(Corpus)
KINDS: tuple[str, ...] = get_args(Kind)
SPLITS: tuple[str, ...] = get_args(Split)

CORPUS_ROOTS: dict[str, Path] = {
    "pgdocs": Path("/usr/share/doc/postgresql-doc-15/html"),
    "gitdocs": Path("/usr/share/doc/git-doc"),
}
"""Where each corpus lives: Debian's ``postgresql-doc-15`` and ``git-doc`` packages."""

CORPUS_PACKAGES: dict[str, str] = {"pgdocs": "postgresql-doc-15", "gitdocs": "git-doc"}
"""The Debian package that installs each corpus root."""

ID_PREFIXES: dict[str, str] = {"pgdocs": "pg", "gitdocs": "git"}
"""The id prefix of each corpus's entries (``pg-001``, ``git-001``)."""

DATA_DIR = Path(__file__).resolve().parent / "data"
"""The directory of the shipped files, named ``<corpus>.<split>.jsonl``."""

_FILE_NAME = re.compile(r"(?P<corpus>[a-z]+)\.(?P<split>[a-z]+)\.jsonl")

Text = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]
"""A string with at least one non-space character."""


class EvalItem(BaseModel):
    """One labelled question and what a correct reply must contain.

    Attributes:
        id: Unique across all files: ``pg-NNN`` for pgdocs, ``git-NNN`` for gitdocs.
        corpus: The document collection the question is asked against.
        split: ``dev`` (for tuning) or ``heldout`` (final measurement only).
        kind: What the question tests (see ``evaluation/data/README.md``).
        question: The question as a user would send it (1-4000 characters, as jobs allow).
        answer_keywords: Groups of alternatives: a correct answer contains every group, each
            through any one of its alternatives (case-insensitive substring).
        pages: Paths, relative to the corpus root, of the pages that state the answer.
        reference_answer: A short correct answer; for unanswerable and off-domain questions,
            why the corpus cannot answer it.
        absent_terms: For unanswerable questions, the terms the question hinges on that occur
            in no document of the corpus.
        expected_route: The route the router should pick.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^(pg|git)-\d{3}$")
    corpus: Corpus
    split: Split
    kind: Kind
    question: Annotated[str, StringConstraints(min_length=1, max_length=4000, pattern=r"\S")]
    answer_keywords: list[Annotated[list[Text], Field(min_length=1)]]
    pages: list[Text]
    reference_answer: Text
    absent_terms: list[Text]
    expected_route: Route

    @model_validator(mode="after")
    def _kind_rules(self) -> EvalItem:
        problems = kind_problems(self)
        if problems:
            raise ValueError("\n".join(problems))
        return self


def kind_problems(item: EvalItem) -> list[str]:
    """Return the rules of its kind (and of its corpus) that an item breaks.

    Args:
        item: The item, already valid field by field.

    Returns:
        One ``field '<name>': <problem>`` string per broken rule; empty when it is valid.
    """
    problems: list[str] = []

    def bad(field: str, problem: str) -> None:
        problems.append(f"field {field!r}: {problem}")

    prefix = ID_PREFIXES[item.corpus]
    if not item.id.startswith(prefix + "-"):
        bad("id", f"{item.corpus} ids start with '{prefix}-', got {item.id!r}")
    groups, pages, terms = len(item.answer_keywords), len(item.pages), len(item.absent_terms)
    if item.kind in ("answerable", "paraphrase"):
        if groups < 1:
            bad("answer_keywords", f"{item.kind} needs at least 1 keyword group, got 0")
        if pages != 1:
            bad("pages", f"{item.kind} needs exactly 1 page, got {pages}")
    elif item.kind == "multi_hop":
        if groups < 2:
            bad("answer_keywords", f"multi_hop needs at least 2 keyword groups, got {groups}")
        if pages != 2:
            bad("pages", f"multi_hop needs exactly 2 pages, got {pages}")
        elif item.pages[0] == item.pages[1]:
            bad("pages", f"multi_hop needs 2 different pages, got {item.pages[0]!r} twice")
    else:
        if groups:
            bad("answer_keywords", f"{item.kind} takes no keywords, got {groups} group(s)")
        if pages:
            bad("pages", f"{item.kind} takes no pages, got {pages}")
    if item.kind == "unanswerable":
        if not 1 <= terms <= 3:
            bad("absent_terms", f"unanswerable needs 1 to 3 absent terms, got {terms}")
        question = item.question.lower()
        for term in item.absent_terms:
            if term.lower() not in question:
                bad("absent_terms", f"{term!r} does not occur in the question")
    elif terms:
        bad("absent_terms", f"only unanswerable entries take absent terms ({item.kind})")
    for page in item.pages:
        posix = PurePosixPath(page)
        if posix.is_absolute() or ".." in posix.parts or "\\" in page:
            bad("pages", f"{page!r} must be a path relative to the corpus root")
    return problems


class DatasetError(ValueError):
    """Some entries of the dataset files are invalid.

    The message has one line per problem, each naming the file, the 1-based line, the
    entry's id when known and the bad field, e.g.
    ``evaluation/data/x.jsonl:7 (id pg-007): field 'pages': multi_hop needs exactly 2 pages,
    got 1``.

    Attributes:
        problems: The problem lines, in file order.
    """

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def dataset_paths(
    split: str | None = None, corpora: str | Iterable[str] | None = None
) -> list[Path]:
    """Return the shipped dataset files for a split and some corpora.

    Args:
        split: ``"dev"``, ``"heldout"``, or ``None`` / ``"all"`` for both. Tuning prompts
            must only ever use ``"dev"``.
        corpora: A corpus name or names (default: every corpus).

    Returns:
        ``evaluation/data/<corpus>.<split>.jsonl`` paths, corpus by corpus (whether or not
        they exist; :func:`load_items` reports a missing one).

    Raises:
        ValueError: An unknown split or corpus name.
    """
    if split is None or split == "all":
        splits = list(SPLITS)
    elif split in SPLITS:
        splits = [split]
    else:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)} or all")
    if corpora is None:
        names = list(CORPORA)
    else:
        names = [corpora] if isinstance(corpora, str) else list(corpora)
        unknown = [name for name in names if name not in CORPORA]
        if unknown:
            raise ValueError(
                f"unknown corpus {', '.join(map(repr, unknown))}; "
                f"expected one of {', '.join(CORPORA)}"
            )
    return [DATA_DIR / f"{name}.{each}.jsonl" for name in names for each in splits]


def load_items(paths: Sequence[Path]) -> list[EvalItem]:
    """Read and validate every entry of the given JSONL files.

    Blank lines are ignored. A file named ``<corpus>.<split>.jsonl`` must hold only entries
    of that corpus and split. Ids must be unique across all the files.

    Args:
        paths: The files to read, in order.

    Returns:
        The entries, file by file in line order.

    Raises:
        DatasetError: Naming every unreadable file, bad JSON line, invalid entry and
            duplicate id found (not just the first).
    """
    items: list[EvalItem] = []
    problems: list[str] = []
    seen: dict[str, str] = {}  # id -> "file:line" of its first occurrence
    for path in paths:
        shown = _display(path)
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{shown}: cannot read: {_reason(exc)}")
            continue
        promised = _FILE_NAME.fullmatch(Path(path).name)
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{shown}:{number}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})")
                continue
            item_id = raw.get("id") if isinstance(raw, dict) else None
            label = f"{where} (id {item_id})" if isinstance(item_id, str) else where
            if not isinstance(raw, dict):
                problems.append(f"{label}: an entry must be a JSON object, got {_json_type(raw)}")
                continue
            try:
                item = EvalItem.model_validate(raw)
            except ValidationError as exc:
                problems.extend(f"{label}: {problem}" for problem in _field_problems(exc))
                continue
            if promised:
                for field in ("corpus", "split"):
                    value, expected = getattr(item, field), promised.group(field)
                    if value != expected:
                        problems.append(
                            f"{label}: field {field!r}: {value!r} does not match the file "
                            f"name {Path(path).name!r} ({field} {expected!r})"
                        )
            if item.id in seen:
                problems.append(f"{label}: field 'id': duplicate id, first used at {seen[item.id]}")
                continue
            seen[item.id] = where
            items.append(item)
    if problems:
        raise DatasetError(problems)
    return items


def _field_problems(exc: ValidationError) -> list[str]:
    problems: list[str] = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error["loc"]]
        if not loc:  # raised by EvalItem._kind_rules: already "field '<name>': ..." lines
            message = str(error.get("ctx", {}).get("error", error["msg"]))
            problems.extend(message.splitlines())
            continue
        field = loc[0] + "".join(f"[{part}]" for part in loc[1:])
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown field (not part of the entry format)"
        elif error["type"] == "missing":
            message = "missing (required)"
        problems.append(f"field {field!r}: {message}")
    return problems


def _display(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _reason(exc: OSError | UnicodeDecodeError) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not valid UTF-8 (byte {exc.start})"
    return exc.strerror or str(exc)


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )
