"""Loaders: each file type, provenance fields, and the errors that name the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpus.errors import IngestError
from corpus.loaders import collect_files, load_file, rfc3339_utc

MAY_1_2024_NOON = 1714564800  # 2024-05-01T12:00:00Z


def make_pdf(pages: list[str], title: str | None = None) -> bytes:
    """Build a minimal valid PDF (Helvetica text, one line per page) byte by byte."""
    font_num = 3 + 2 * len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{3 + 2 * i} 0 R".encode() for i in range(len(pages)))
        + f"] /Count {len(pages)} >>".encode(),
    ]
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font_num} 0 R >> >> >>".encode()
        )
        objects.append(
            f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream"
        )
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    info_ref = b""
    if title is not None:
        objects.append(f"<< /Title ({title}) >>".encode())
        info_ref = f" /Info {len(objects)} 0 R".encode()

    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for num, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{num} 0 obj\n".encode() + body + b"\nendobj\n"
    xref_at = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{off:010d} 00000 n \n".encode() for off in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R".encode() + info_ref + b" >>\n"
    out += f"startxref\n{xref_at}\n%%EOF\n".encode()
    return bytes(out)


def write(path: Path, data: str | bytes, mtime: float = MAY_1_2024_NOON) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return path


HTML_PAGE = """<!DOCTYPE html>
<html><head><title>5.1. Table Basics</title>
<style>body { color: red }</style><script>var tracking = "SCRIPTTEXT";</script></head>
<body>
<div class="navheader"><a href="prev.html">Prev NAVHEADER</a></div>
<nav>Site menu NAVTEXT</nav>
<h1>Ignored heading</h1>
<p>A table in a relational database is much like a
table on paper: it consists of <code>rows</code> and columns.</p>
<pre>CREATE TABLE t (
    a integer
);</pre>
<ul><li>first item</li><li>second item</li></ul>
<div class="navfooter">Next NAVFOOTER</div>
</body></html>
"""


class TestHtml:
    def test_text_title_and_provenance(self, tmp_path: Path) -> None:
        path = write(tmp_path / "ddl-basics.html", HTML_PAGE)
        src = load_file(path)
        assert src.title == "5.1. Table Basics"
        assert src.locator == str(path.resolve())
        assert src.updated_at == "2024-05-01T12:00:00Z"
        assert src.markup == "markdown"
        # Paragraph line breaks are joined, inline markup kept inline.
        assert "much like a table on paper: it consists of rows and columns." in src.text
        # <pre> keeps its layout, fenced; headings become '#' lines; items become bullets.
        assert "```\nCREATE TABLE t (\n    a integer\n);\n```" in src.text
        assert "# Ignored heading" in src.text
        assert "- first item\n- second item" in src.text

    def test_scripts_styles_and_navigation_are_dropped(self, tmp_path: Path) -> None:
        src = load_file(write(tmp_path / "p.htm", HTML_PAGE))
        for dropped in ("SCRIPTTEXT", "color: red", "NAVTEXT", "NAVHEADER", "NAVFOOTER"):
            assert dropped not in src.text

    def test_title_falls_back_to_h1_then_stem(self, tmp_path: Path) -> None:
        with_h1 = write(tmp_path / "a.html", "<html><body><h1>Intro  to\nSQL</h1><p>x</p>")
        assert load_file(with_h1).title == "Intro to SQL"
        bare = write(tmp_path / "release-notes.html", "<html><body><p>text</p></body></html>")
        assert load_file(bare).title == "release-notes"

    def test_page_without_visible_text_is_an_error(self, tmp_path: Path) -> None:
        path = write(tmp_path / "empty.html", "<html><head><title>T</title></head><body>")
        with pytest.raises(IngestError, match=r"empty\.html.*no text"):
            load_file(path)

    def test_url_locator_overrides_path(self, tmp_path: Path) -> None:
        path = write(tmp_path / "p.html", HTML_PAGE)
        url = "https://www.postgresql.org/docs/15/ddl-basics.html"
        assert load_file(path, locator=url).locator == url


class TestMarkdownAndText:
    def test_markdown_title_from_first_h1(self, tmp_path: Path) -> None:
        text = "Intro line\n\n```bash\n# not a heading\n```\n\n## Sub\n\n# Real Title #\n\nBody\n"
        src = load_file(write(tmp_path / "guide.md", text))
        assert src.title == "Real Title"
        assert src.markup == "markdown"
        assert src.text.startswith("Intro line")

    def test_markdown_without_h1_uses_stem(self, tmp_path: Path) -> None:
        src = load_file(write(tmp_path / "notes.md", "## Only a sub heading\n\ntext"))
        assert src.title == "notes"

    def test_hash_without_space_is_not_a_heading(self, tmp_path: Path) -> None:
        src = load_file(write(tmp_path / "tags.md", "#hashtag\n\n# C#\n"))
        assert src.title == "C#"

    def test_txt(self, tmp_path: Path) -> None:
        src = load_file(write(tmp_path / "readme.TXT", "\ufeffplain words\n"))
        assert (src.text, src.title, src.markup) == ("plain words", "readme", "plain")

    def test_not_utf8_is_an_error_naming_the_file(self, tmp_path: Path) -> None:
        path = write(tmp_path / "latin.txt", "caf\xe9".encode("latin-1"))
        with pytest.raises(IngestError, match=r"latin\.txt: not valid UTF-8"):
            load_file(path)

    @pytest.mark.parametrize("name", ["empty.txt", "empty.md", "blank.txt"])
    def test_empty_file_is_an_error_naming_the_file(self, tmp_path: Path, name: str) -> None:
        path = write(tmp_path / name, "  \n\t\n" if name.startswith("blank") else "")
        with pytest.raises(IngestError, match=rf"{name}: no text"):
            load_file(path)


class TestPdf:
    def test_pages_joined_and_metadata_title(self, tmp_path: Path) -> None:
        data = make_pdf(["Alpha page text", "Beta page text"], title="Storage Manual")
        src = load_file(write(tmp_path / "manual.pdf", data))
        assert src.title == "Storage Manual"
        assert src.text == "Alpha page text\n\nBeta page text"
        assert src.markup == "plain"
        assert src.updated_at == "2024-05-01T12:00:00Z"

    def test_title_falls_back_to_stem(self, tmp_path: Path) -> None:
        src = load_file(write(tmp_path / "report-2024.pdf", make_pdf(["Gamma"])))
        assert src.title == "report-2024"

    def test_corrupt_pdf_is_an_error_naming_the_file(self, tmp_path: Path) -> None:
        path = write(tmp_path / "broken.pdf", b"%PDF-1.4\nthis is not really a pdf")
        with pytest.raises(IngestError, match=r"broken\.pdf"):
            load_file(path)

    def test_pdf_without_text_is_an_error(self, tmp_path: Path) -> None:
        path = write(tmp_path / "scan.pdf", make_pdf([""]))
        with pytest.raises(IngestError, match=r"scan\.pdf: no text"):
            load_file(path)


class TestErrors:
    def test_unsupported_extension(self, tmp_path: Path) -> None:
        path = write(tmp_path / "sheet.xlsx", "x")
        with pytest.raises(IngestError, match=r"sheet\.xlsx: unsupported file type '\.xlsx'"):
            load_file(path)

    def test_missing_file(self, tmp_path: Path) -> None:
        with pytest.raises(IngestError, match=r"gone\.md: cannot read"):
            load_file(tmp_path / "gone.md")

    def test_unreadable_file(self, tmp_path: Path) -> None:
        # A directory with a file's name fails to read for any user, root included.
        (tmp_path / "folder.txt").mkdir()
        with pytest.raises(IngestError, match=r"folder\.txt: cannot read"):
            load_file(tmp_path / "folder.txt")


class TestCollectFiles:
    def test_walks_recursively_sorted_and_counts_skipped(self, tmp_path: Path) -> None:
        write(tmp_path / "b.md", "b")
        write(tmp_path / "a.html", "<p>a</p>")
        write(tmp_path / "sub" / "deep" / "c.pdf", b"%PDF")
        write(tmp_path / "sub" / "image.png", b"\x89PNG")
        write(tmp_path / "sub" / "Makefile", "all:")
        write(tmp_path / ".git" / "config.txt", "hidden")
        collected = collect_files([tmp_path])
        root = tmp_path.resolve()
        assert collected.files == [root / "a.html", root / "b.md", root / "sub/deep/c.pdf"]
        assert sorted(collected.skipped) == [root / "sub/Makefile", root / "sub/image.png"]

    def test_explicit_unsupported_file_is_an_error(self, tmp_path: Path) -> None:
        path = write(tmp_path / "image.png", b"\x89PNG")
        with pytest.raises(IngestError, match=r"image\.png: unsupported file type"):
            collect_files([path])

    def test_missing_path_is_an_error(self, tmp_path: Path) -> None:
        with pytest.raises(IngestError, match=r"nowhere: no such file or directory"):
            collect_files([tmp_path / "nowhere"])

    def test_a_single_path_is_not_iterated_as_characters(self, tmp_path: Path) -> None:
        path = write(tmp_path / "a.txt", "a")
        assert collect_files(str(tmp_path)).files == [path.resolve()]
        assert collect_files(path).files == [path.resolve()]

    def test_a_file_named_twice_is_collected_once(self, tmp_path: Path) -> None:
        path = write(tmp_path / "a.txt", "a")
        collected = collect_files([path, tmp_path, str(path)])
        assert collected.files == [path.resolve()]


def test_rfc3339_utc() -> None:
    assert rfc3339_utc(MAY_1_2024_NOON) == "2024-05-01T12:00:00Z"
    assert rfc3339_utc(MAY_1_2024_NOON + 0.75) == "2024-05-01T12:00:00Z"
