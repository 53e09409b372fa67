"""Read source files (HTML, Markdown, plain text, PDF) into text with provenance.

:func:`collect_files` expands the paths a caller names into the files to ingest;
:func:`load_file` reads one of them into a :class:`SourceFile`. Every failure is an
:class:`~corpus.errors.IngestError` whose message starts with the file's path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, NamedTuple

from corpus.errors import IngestError
from corpus.htmltext import extract_html

Markup = Literal["markdown", "plain"]

SUPPORTED_SUFFIXES = frozenset({".html", ".htm", ".md", ".txt", ".pdf"})
"""File name endings :func:`load_file` reads (compared case-insensitively)."""

_MD_H1 = re.compile(r"#\s+(.+?)(?:\s+#+)?\s*")
_FENCE = re.compile(r"\s*(```|~~~)")


class SourceFile(NamedTuple):
    """One source file's text and provenance, ready for chunking.

    Attributes:
        text: The readable text (never empty).
        title: Human-readable title (never empty; falls back to the file stem).
        locator: Absolute path of the file, or the URL the caller gave for it.
        updated_at: File modification time, RFC 3339 UTC with a ``Z`` suffix.
        markup: ``"markdown"`` when the text carries Markdown structure (Markdown files
            and HTML pages, whose headings are rendered as ``#`` lines), else ``"plain"``.
    """

    text: str
    title: str
    locator: str
    updated_at: str
    markup: Markup


class CollectedFiles(NamedTuple):
    """The outcome of expanding caller paths.

    Attributes:
        files: Supported files to ingest, absolute, de-duplicated, in walk order.
        skipped: Unsupported files met while walking directories, absolute.
    """

    files: list[Path]
    skipped: list[Path]


def is_supported(path: Path) -> bool:
    """Return True when ``path``'s suffix is one :func:`load_file` reads."""
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def collect_files(paths: Iterable[str | Path]) -> CollectedFiles:
    """Expand files and directories into the supported files beneath them.

    Directories are walked recursively in sorted order, not following symlinked
    directories and skipping hidden ones (``.git`` and the like). Unsupported files met in a
    walk are reported in ``skipped``; one named explicitly is an error, since the caller
    asked for it by name.

    Args:
        paths: Files and/or directories (a single path is accepted too).

    Returns:
        The files to ingest and the unsupported files skipped.

    Raises:
        IngestError: A named path does not exist, or a named file is unsupported.
    """
    if isinstance(paths, str | Path):
        paths = [paths]  # iterating a lone str would walk its characters
    files: dict[Path, None] = {}  # an ordered set: a file named twice is ingested once
    skipped: list[Path] = []
    for raw in paths:
        path = Path(raw).resolve()
        if path.is_dir():
            for found in _walk(path):
                if is_supported(found):
                    files[found] = None
                else:
                    skipped.append(found)
        elif path.is_file():
            if not is_supported(path):
                raise IngestError(
                    f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
                    f"supported: {', '.join(sorted(SUPPORTED_SUFFIXES))}"
                )
            files[path] = None
        else:
            raise IngestError(f"{path}: no such file or directory")
    return CollectedFiles(list(files), skipped)


def _walk(root: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            candidate = Path(dirpath, name)
            if candidate.is_file():  # skips broken symlinks, sockets, fifos
                yield candidate.resolve()


def load_file(path: str | Path, *, locator: str | None = None) -> SourceFile:
    """Read one supported file into a :class:`SourceFile`.

    Args:
        path: The file to read.
        locator: What to record as the source (e.g. the page's public URL); defaults to
            the file's absolute path.

    Returns:
        The file's text and provenance.

    Raises:
        IngestError: Unsupported suffix, unreadable or undecodable file, or no text in it.
    """
    path = Path(path).resolve()
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise IngestError(f"{path}: unsupported file type {suffix or '(no suffix)'!r}")
    try:
        mtime = path.stat().st_mtime
        if suffix == ".pdf":
            text, title = _read_pdf(path)
            markup: Markup = "plain"
        else:
            data = path.read_bytes()
            if suffix in (".html", ".htm"):
                text, title = extract_html(data)
                markup = "markdown"
            elif suffix == ".md":
                text = _decode(path, data)
                title, markup = _markdown_title(text), "markdown"
            else:
                text, title, markup = _decode(path, data), "", "plain"
    except OSError as exc:
        raise IngestError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    text = text.strip()
    if not text:
        raise IngestError(f"{path}: no text to index (empty file or no extractable text)")
    return SourceFile(
        text=text,
        title=title or path.stem,
        locator=locator or str(path),
        updated_at=rfc3339_utc(mtime),
        markup=markup,
    )


def rfc3339_utc(timestamp: float) -> str:
    """Format a POSIX timestamp (seconds) as RFC 3339 UTC, e.g. ``2024-05-01T12:00:00Z``."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(f"{path}: not valid UTF-8 text (byte {exc.start})") from exc


def _markdown_title(text: str) -> str:
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence  # a '# comment' in a code block is not a heading
        elif not in_fence and (match := _MD_H1.fullmatch(line)):
            return match.group(1)
    return ""


def _read_pdf(path: Path) -> tuple[str, str]:
    from pypdf import PdfReader

    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(f"{path}: PDF is encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata else None
    except (IngestError, OSError):
        raise
    except Exception as exc:
        # pypdf raises a wide range of types (KeyError, ValueError, its own errors) on
        # malformed input; any of them means this one file is unusable, not the run.
        raise IngestError(f"{path}: cannot parse PDF: {exc}") from exc
    title = str(meta_title).strip() if meta_title else ""
    return "\n\n".join(page.strip() for page in pages if page.strip()), title
