"""Chunking: sizes, positions, provenance and ids that are stable across runs."""

from __future__ import annotations

import pytest

from corpus.chunking import chunk_source
from corpus.loaders import SourceFile

LOCATOR = "/srv/docs/guide.md"


def source(text: str, markup: str = "markdown") -> SourceFile:
    return SourceFile(
        text=text,
        title="Guide",
        locator=LOCATOR,
        updated_at="2024-05-01T12:00:00Z",
        markup=markup,  # type: ignore[arg-type]
    )


def sentences(n: int, word: str = "lorem") -> str:
    return " ".join(f"{word} sentence number {i} ends here." for i in range(n))


def test_ids_are_stable_across_runs_and_processes() -> None:
    docs = chunk_source(source(sentences(60)), "acme", chunk_size=300, chunk_overlap=50)
    again = chunk_source(source(sentences(60)), "acme", chunk_size=300, chunk_overlap=50)
    assert [d["id"] for d in docs] == [d["id"] for d in again]
    # Pinned values: sha256("<locator>#<position>")[:32], the same in every process.
    assert docs[0]["id"] == "96a0f39f992a8a89195d4cd541b268ff"
    assert docs[1]["id"] == "634f4871aeab5abb0eb0f8ef24b6159c"
    assert len({d["id"] for d in docs}) == len(docs)


def test_documents_carry_provenance_and_positions() -> None:
    docs = chunk_source(source(sentences(60)), "acme", chunk_size=300, chunk_overlap=50)
    assert len(docs) > 3
    assert [d["position"] for d in docs] == list(range(len(docs)))
    for doc in docs:
        assert doc["tenant_id"] == "acme"
        assert doc["source_type"] == "index"
        assert doc["locator"] == LOCATOR
        assert doc["title"] == "Guide"
        assert doc["updated_at"] == "2024-05-01T12:00:00Z"
        assert "score" not in doc
        assert 0 < len(doc["text"]) <= 300


def test_sentences_are_not_cut_and_neighbours_overlap() -> None:
    docs = chunk_source(source(sentences(60), "plain"), "acme", chunk_size=300, chunk_overlap=80)
    for doc in docs:
        assert doc["text"].endswith("ends here.")
    first_tail = docs[0]["text"].rsplit("lorem", 1)[-1]
    assert first_tail in docs[1]["text"]


def test_markdown_splits_at_headings_first() -> None:
    text = "# Install\n\n" + sentences(4, "setup") + "\n\n## Configure\n\n" + sentences(4, "conf")
    docs = chunk_source(source(text), "acme", chunk_size=300, chunk_overlap=0)
    assert docs[0]["text"].startswith("# Install")
    assert any(d["text"].startswith("## Configure") for d in docs)
    assert not any("setup" in d["text"] and "conf" in d["text"] for d in docs)


def test_short_text_is_one_chunk() -> None:
    docs = chunk_source(source("Just one line."), "acme")
    assert [(d["position"], d["text"]) for d in docs] == [(0, "Just one line.")]


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1), (100, 150)])
def test_bad_sizes_raise(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="chunk_size"):
        chunk_source(source("x"), "acme", chunk_size=size, chunk_overlap=overlap)


REFERENCE = (
    "## 20.12. Lock Management\n\n"
    "deadlock_timeout (integer)\n\n"
    + sentences(12, "wait")
    + " The default is one second (1s).\n\n"
    "```\n\nSELECT 1\n\n```\n\n"
    "max_locks_per_transaction (integer)\n\n"
    + sentences(3, "lock")
    + "\n\n## 20.13. Compatibility\n\n"
    + sentences(8, "compat")
)


def test_a_chunk_inside_a_terms_description_starts_with_that_term_line() -> None:
    docs = chunk_source(source(REFERENCE), "acme", chunk_size=300, chunk_overlap=0)
    [default] = [d["text"] for d in docs if "The default is one second" in d["text"]]
    assert default.startswith("deadlock_timeout (integer)\n\n")
    assert "wait sentence number 0" not in default  # it did start mid-description
    # The next term's description is headed by its own term line, never the one before.
    locks = [d["text"] for d in docs if "lock sentence number" in d["text"]]
    assert locks and not any(text.startswith("deadlock_timeout") for text in locks)
    # A heading ends the term above it, and code lines are never term lines.
    compat = [d["text"] for d in docs if "compat sentence number 7" in d["text"]]
    assert compat and not any("(integer)" in text for text in compat)
    assert not any(d["text"].startswith("SELECT 1\n") for d in docs)


RELEASES = (
    "# Release history\n\nEvery major release, with its date.\n\n"
    + (
        "| Major version | Release date | Headline features |\n|---|---|---|\n"
        + "".join(
            f"| PostgreSQL {v} | 20{v + 7}-09-2{v % 9} | {sentences(2, 'feature')} |\n"
            for v in range(10, 18)
        )
    )
    + "\nOlder releases are listed in the archive.\n"
)


def test_a_chunk_inside_a_table_starts_with_the_tables_header() -> None:
    docs = chunk_source(source(RELEASES), "acme", chunk_size=300, chunk_overlap=0)
    [last] = [d["text"] for d in docs if "| PostgreSQL 17 |" in d["text"]]
    assert "| PostgreSQL 10 |" not in last  # the premise: the table was split
    assert last.startswith("| Major version | Release date | Headline features |\n|---|---|---|\n")
    # A chunk that starts at the header itself, or outside the table, gets no second one.
    assert all(d["text"].count("| Major version |") <= 1 for d in docs)
    [intro] = [d["text"] for d in docs if d["text"].startswith("# Release history")]
    assert "Major version" not in intro.split("\n\n")[0]
    tail = [d["text"] for d in docs if "Older releases" in d["text"]]
    assert tail and not any(t.startswith("Older") and "Major version" in t for t in tail)


def test_a_chunk_that_starts_at_the_rule_gets_the_header_above_it() -> None:
    from corpus.chunking import continued_table_headers

    text = "| Name | Default |\n|-|-|\n| a | 1 |\n| b | 2 |"
    pieces = ["| Name | Default |", "|-|-|\n| a | 1 |", "| b | 2 |"]
    assert continued_table_headers(text, pieces) == [
        None,
        "| Name | Default |",
        "| Name | Default |\n|-|-|",
    ]
