"""Split a :class:`~corpus.loaders.SourceFile` into index-ready :class:`Document` chunks.

Sizes are in characters. Markdown-structured text (Markdown files and HTML pages) is split
at headings first, then code fences and rules, then paragraphs, lines, sentences, words; plain
text (``.txt``, PDF) at paragraphs, lines, sentences, words. Chunk ids come from
:func:`pipeline.documents.chunk_id`, so the same file always yields the same ids.
"""

from __future__ import annotations

import bisect

from langchain_text_splitters import RecursiveCharacterTextSplitter

from corpus.loaders import Markup, SourceFile
from pipeline.documents import Document, chunk_id
from pipeline.lexical import TABLE_RULE
from pipeline.refine import is_label

DEFAULT_CHUNK_SIZE = 700
"""Target chunk length, characters (~175 tokens).

Chosen by retrieval hit@4 on the evaluation dev split of the PostgreSQL manual (BM25):
the chunk of the labelled page was in the top 4 for 21 of 25 answerable questions at 700
characters, 18 at 1,000 and 19 at 500 (``crag eval --retrieval-only``); shorter chunks also
cost the graders fewer prompt tokens.
"""

DEFAULT_CHUNK_OVERLAP = 120
"""Characters shared by neighbouring chunks, so a sentence cut at a boundary survives whole."""

# Regex separators, coarsest first. The sentence break is a lookbehind so the full stop
# stays with its sentence instead of starting the next chunk.
_SENTENCE = r"(?<=[.!?]) "
_PLAIN_SEPARATORS = [r"\n\n", r"\n", _SENTENCE, r" ", r""]
_MARKDOWN_SEPARATORS = [
    r"\n#{1,6} ",
    r"```\n",
    r"\n\*\*\*+\n",
    r"\n---+\n",
    r"\n___+\n",
    *_PLAIN_SEPARATORS,
]


def make_splitter(
    markup: Markup, chunk_size: int, chunk_overlap: int
) -> RecursiveCharacterTextSplitter:
    """Return the splitter for text with ``markup``.

    Args:
        markup: ``"markdown"`` or ``"plain"``.
        chunk_size: Maximum chunk length, characters (> 0).
        chunk_overlap: Overlap between neighbours, characters (0 <= overlap < size).

    Raises:
        ValueError: The sizes are out of range.
    """
    if chunk_size <= 0 or not 0 <= chunk_overlap < chunk_size:
        raise ValueError(
            f"need chunk_size > 0 and 0 <= chunk_overlap < chunk_size, "
            f"got chunk_size={chunk_size}, chunk_overlap={chunk_overlap}"
        )
    separators = _MARKDOWN_SEPARATORS if markup == "markdown" else _PLAIN_SEPARATORS
    return RecursiveCharacterTextSplitter(
        separators=separators,
        is_separator_regex=True,
        keep_separator=True,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        strip_whitespace=True,
    )


def _markers(text: str) -> list[tuple[int, str | None]]:
    """``(offset, term line or None)`` of each term line and heading of ``text``, in order.

    A term line stands alone as a paragraph and is a label (:func:`pipeline.refine.is_label`)
    but not a Markdown heading: ``max_wal_size (integer)``, ``--depth <depth>``. A heading
    is recorded as ``None``: it ends the term above it. Lines inside code fences are neither.
    """
    markers: list[tuple[int, str | None]] = []
    lines = text.split("\n")
    offset, fenced = 0, False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
        elif not fenced and stripped.startswith("#"):
            markers.append((offset, None))
        elif (
            not fenced
            and is_label(stripped)
            and sum(c.isalnum() for c in stripped) >= 2  # not a bare list bullet "-"
            and (i == 0 or not lines[i - 1].strip())
            and (i + 1 == len(lines) or not lines[i + 1].strip())
        ):
            markers.append((offset, stripped))
        offset += len(line) + 1
    return markers


def continued_terms(text: str, pieces: list[str]) -> list[str | None]:
    """For each piece of ``text``, the term line it continues under, if it starts below one.

    Reference pages name a setting or option once, in a term line, and describe it in the
    paragraphs under it; a chunk that starts in the middle of such a description ("The
    default is one second (1s).") no longer says what it describes, so neither BM25 nor a
    grader nor the generator can tell it is the answer. Each such chunk is given its term
    line as a first line (a contextual chunk header); a chunk that starts at a heading, at
    its term line, or above any term gets none.

    Args:
        text: The source's whole text.
        pieces: Its chunks in order, as the splitter returned them (substrings of ``text``).

    Returns:
        One entry per piece: the term line, or ``None``.
    """
    markers = _markers(text)
    terms: list[str | None] = []
    cursor = 0
    for piece in pieces:
        start = text.find(piece, cursor)
        if start < 0:  # the splitter stripped or changed it; never guess a header
            terms.append(None)
            continue
        cursor = start + 1
        first = piece.lstrip().split("\n", 1)[0].strip()
        if first.startswith("#") or is_label(first):
            terms.append(None)  # it starts at a heading or a term line of its own
            continue
        above = [term for offset, term in markers if offset < start]
        terms.append(above[-1] if above else None)
    return terms


def continued_table_headers(text: str, pieces: list[str]) -> list[str | None]:
    """For each piece of ``text``, the header of the Markdown table it starts inside, if any.

    A table split across chunks leaves its later rows without the header that says what
    each column holds ("| PostgreSQL 17 | 2024-09-26 |" no longer says that the date is
    the release date), so neither the conflict check (which reads a column by its header,
    :mod:`pipeline.conflicts`) nor the model can read them. Each chunk that starts at a
    row below a table's header gets that header and its rule as first lines, the way
    :func:`continued_terms` gives a chunk its term line.

    Args:
        text: The source's whole text.
        pieces: Its chunks in order, as the splitter returned them (substrings of ``text``).

    Returns:
        One entry per piece: the header row and its rule (two lines), or ``None``.
    """
    lines = text.split("\n")
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    headers: list[str | None] = []
    cursor = 0
    for piece in pieces:
        start = text.find(piece, cursor)
        if start < 0:
            headers.append(None)
            continue
        cursor = start + 1
        row = bisect.bisect_right(starts, start) - 1
        headers.append(_header_above(lines, row) if not text[starts[row] : start].strip() else None)
    return headers


def _header_above(lines: list[str], row: int) -> str | None:
    """The header row (and rule) of the table whose body row or rule ``row`` is, or ``None``."""
    if not lines[row].lstrip().startswith("|"):
        return None
    if TABLE_RULE.match(lines[row]):  # the piece starts at the rule: the header is above it
        above = lines[row - 1].strip() if row else ""
        return above if above.startswith("|") and not TABLE_RULE.match(above) else None
    for up in range(row - 1, 0, -1):
        if not lines[up].lstrip().startswith("|"):
            return None
        if TABLE_RULE.match(lines[up]):
            above = lines[up - 1].strip()
            return f"{above}\n{lines[up].strip()}" if above.startswith("|") else None
    return None


def chunk_source(
    source: SourceFile,
    tenant_id: str,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
) -> list[Document]:
    """Split ``source`` into chunks carrying its provenance.

    Args:
        source: A loaded file.
        tenant_id: The tenant the chunks belong to (already validated by the caller).
        chunk_size: Maximum chunk length, characters.
        chunk_overlap: Overlap between neighbouring chunks, characters.

    Returns:
        Documents in text order with ``position`` 0, 1, ...; ``source_type`` is
        ``"index"`` and ``id`` is ``chunk_id(source.locator, position)``. No ``score``. A
        chunk that starts inside a term's description begins with that term line
        (:func:`continued_terms`), and one that starts inside a Markdown table with the
        table's header row (:func:`continued_table_headers`).

    Raises:
        ValueError: The sizes are out of range.
    """
    splitter = make_splitter(source.markup, chunk_size, chunk_overlap)
    pieces = [piece for piece in splitter.split_text(source.text) if piece.strip()]
    terms = continued_terms(source.text, pieces)
    headers = continued_table_headers(source.text, pieces)
    pieces = [
        (f"{term}\n\n" if term else "") + (f"{header}\n" if header else "") + piece
        for piece, term, header in zip(pieces, terms, headers, strict=True)
    ]
    return [
        Document(
            id=chunk_id(source.locator, position),
            text=piece,
            source_type="index",
            locator=source.locator,
            title=source.title,
            updated_at=source.updated_at,
            tenant_id=tenant_id,
            position=position,
        )
        for position, piece in enumerate(pieces)
    ]
