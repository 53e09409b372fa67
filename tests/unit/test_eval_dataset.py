"""The evaluation dataset: the shipped files' shape and counts, the loader's errors (file,
line, id, field), and the checks against documents on a tiny corpus loaded like the
product loads one. The last tests check the shipped entries against the installed Debian
manuals and fail (never skip) when those are missing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from evaluation.check import (
    check_absent_terms,
    check_item,
    check_items,
    check_keywords,
    check_pages,
    check_paraphrase,
    check_unique_ids,
    load_corpus,
    main,
)
from evaluation.dataset import (
    CORPUS_PACKAGES,
    CORPUS_ROOTS,
    DATA_DIR,
    DatasetError,
    EvalItem,
    dataset_paths,
    load_items,
)

# The planned composition: (corpus, split) -> kind -> count.
PLANNED = {
    ("pgdocs", "dev"): {
        "answerable": 14,
        "multi_hop": 5,
        "paraphrase": 6,
        "unanswerable": 6,
        "off_domain": 5,
    },
    ("pgdocs", "heldout"): {
        "answerable": 10,
        "multi_hop": 3,
        "paraphrase": 4,
        "unanswerable": 4,
        "off_domain": 3,
    },
    ("gitdocs", "dev"): {
        "answerable": 4,
        "multi_hop": 2,
        "paraphrase": 1,
        "unanswerable": 2,
        "off_domain": 1,
    },
    ("gitdocs", "heldout"): {
        "answerable": 4,
        "multi_hop": 1,
        "paraphrase": 2,
        "unanswerable": 1,
        "off_domain": 2,
    },
}


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from tmp_path, so errors show the files written there as relative paths."""
    monkeypatch.chdir(tmp_path)


def entry(**fields: Any) -> dict[str, Any]:
    """A valid answerable pgdocs entry, with ``fields`` replacing or adding keys."""
    base: dict[str, Any] = {
        "id": "pg-901",
        "corpus": "pgdocs",
        "split": "dev",
        "kind": "answerable",
        "question": "What does frobnicate_limit default to?",
        "answer_keywords": [["42"]],
        "pages": ["guide/settings.html"],
        "reference_answer": "42 widgets.",
        "absent_terms": [],
        "expected_route": "vectorstore",
    }
    base.update(fields)
    return base


def item(**fields: Any) -> EvalItem:
    return EvalItem.model_validate(entry(**fields))


def write_jsonl(path: Path, *lines: dict[str, Any] | str) -> Path:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def load_error(*paths: Path) -> DatasetError:
    with pytest.raises(DatasetError) as caught:
        load_items(list(paths))
    return caught.value


# --- the shipped files -------------------------------------------------------------------


def test_shipped_files_exist_and_are_the_ones_dataset_paths_names() -> None:
    shipped = sorted(DATA_DIR.glob("*.jsonl"))
    assert shipped == sorted(dataset_paths())
    assert [p.name for p in dataset_paths("dev")] == ["pgdocs.dev.jsonl", "gitdocs.dev.jsonl"]
    assert [p.name for p in dataset_paths("heldout", "gitdocs")] == ["gitdocs.heldout.jsonl"]
    assert dataset_paths("all") == dataset_paths(None)
    with pytest.raises(ValueError, match="unknown split 'test'"):
        dataset_paths("test")
    with pytest.raises(ValueError, match="unknown corpus 'wiki'"):
        dataset_paths("dev", ["wiki"])


def test_shipped_files_load_with_the_planned_kinds_and_splits() -> None:
    items = load_items(dataset_paths())
    counts = Counter((i.corpus, i.split, i.kind) for i in items)
    actual = {
        (corpus, split): {kind: counts[(corpus, split, kind)] for kind in kinds}
        for (corpus, split), kinds in PLANNED.items()
    }
    assert actual == PLANNED
    assert len(items) == sum(sum(kinds.values()) for kinds in PLANNED.values()) == 80
    assert {i.expected_route for i in items} == {"vectorstore"}  # no small talk in the set
    assert len({i.id for i in items}) == len(items)


def test_each_shipped_file_holds_only_its_own_corpus_and_split() -> None:
    for path in dataset_paths():
        corpus, split, _ = path.name.split(".")
        items = load_items([path])
        assert items, path
        assert {(i.corpus, i.split) for i in items} == {(corpus, split)}, path


def test_shipped_paraphrases_do_not_give_their_keywords_away() -> None:
    for i in load_items(dataset_paths()):
        assert check_paraphrase(i) == [], i.id


# --- the loader's errors -----------------------------------------------------------------


def test_bad_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", entry(), "{not json", "", entry(id="pg-902"))
    error = load_error(path)
    assert len(error.problems) == 1
    assert "x.jsonl:2: not valid JSON" in str(error)


def test_an_unknown_field_is_named_with_file_line_and_id(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", entry(), entry(id="pg-902", colour="blue"))
    message = str(load_error(path))
    assert "x.jsonl:2 (id pg-902): field 'colour': unknown field" in message


def test_a_multi_hop_entry_with_one_page_breaks_its_kind_rule(tmp_path: Path) -> None:
    bad = entry(id="pg-007", kind="multi_hop", answer_keywords=[["42"], ["widgets"]])
    path = write_jsonl(tmp_path / "x.jsonl", entry(), "", "", "", "", "", bad)
    message = str(load_error(path))
    assert message == "x.jsonl:7 (id pg-007): field 'pages': multi_hop needs exactly 2 pages, got 1"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"kind": "riddle"}, "field 'kind': Input should be"),
        ({"question": ""}, "field 'question':"),
        ({"question": "x" * 4001}, "field 'question': String should have at most 4000"),
        ({"answer_keywords": [[]]}, "field 'answer_keywords[0]': List should have at least 1"),
        ({"answer_keywords": [["  "]]}, "field 'answer_keywords[0][0]':"),
        ({"answer_keywords": []}, "field 'answer_keywords': answerable needs at least 1"),
        ({"pages": ["a.html", "b.html"]}, "field 'pages': answerable needs exactly 1 page, got 2"),
        ({"pages": ["../etc/passwd"]}, "field 'pages': '../etc/passwd' must be a path relative"),
        ({"absent_terms": ["zz"]}, "field 'absent_terms': only unanswerable entries"),
        ({"expected_route": "web"}, "field 'expected_route': Input should be"),
        ({"id": "git-001"}, "field 'id': pgdocs ids start with 'pg-'"),
        ({"id": "pg-1"}, "field 'id': String should match pattern"),
        (
            {"kind": "unanswerable", "answer_keywords": [], "pages": []},
            "field 'absent_terms': unanswerable needs 1 to 3 absent terms, got 0",
        ),
        (
            {"kind": "unanswerable", "answer_keywords": [], "pages": [], "absent_terms": ["zq"]},
            "field 'absent_terms': 'zq' does not occur in the question",
        ),
        ({"kind": "off_domain"}, "field 'answer_keywords': off_domain takes no keywords"),
        (
            {"kind": "multi_hop", "pages": ["a.html", "b.html"]},
            "field 'answer_keywords': multi_hop needs at least 2 keyword groups, got 1",
        ),
    ],
)
def test_invalid_fields_are_named(tmp_path: Path, fields: dict[str, Any], expected: str) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", entry(**fields))
    message = str(load_error(path))
    assert message.startswith("x.jsonl:1"), message
    assert expected in message


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    raw = entry()
    del raw["reference_answer"]
    message = str(load_error(write_jsonl(tmp_path / "x.jsonl", raw)))
    assert "x.jsonl:1 (id pg-901): field 'reference_answer': missing" in message


def test_a_line_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    message = str(load_error(write_jsonl(tmp_path / "x.jsonl", "[1, 2]")))
    assert message == "x.jsonl:1: an entry must be a JSON object, got an array"


def test_duplicate_ids_across_files_name_both_places(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "a.jsonl", entry(id="pg-950"))
    second = write_jsonl(tmp_path / "b.jsonl", entry(id="pg-951"), entry(id="pg-950"))
    message = str(load_error(first, second))
    assert "b.jsonl:2 (id pg-950): field 'id': duplicate id, first used at" in message
    assert "a.jsonl:1" in message


def test_the_file_name_fixes_corpus_and_split(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pgdocs.dev.jsonl", entry(split="heldout"))
    message = str(load_error(path))
    assert "pgdocs.dev.jsonl:1 (id pg-901): field 'split': 'heldout' does not match" in message
    path = write_jsonl(tmp_path / "gitdocs.heldout.jsonl", entry(split="heldout"))
    assert "field 'corpus': 'pgdocs' does not match" in str(load_error(path))


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    first = write_jsonl(
        tmp_path / "a.jsonl",
        entry(id="pg-960", kind="paraphrase", pages=[]),
        "oops",
        entry(id="pg-961", kind="off_domain", answer_keywords=[], pages=[], absent_terms=["x"]),
    )
    error = load_error(first, tmp_path / "missing.jsonl")
    assert [p.split(": ", 1)[0] for p in error.problems] == [
        "a.jsonl:1 (id pg-960)",
        "a.jsonl:2",
        "a.jsonl:3 (id pg-961)",
        "missing.jsonl",
    ]
    assert "cannot read" in error.problems[-1]


def test_valid_entries_load(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "pgdocs.dev.jsonl",
        entry(),
        "",
        entry(
            id="pg-902",
            kind="multi_hop",
            answer_keywords=[["42"], ["nightly"]],
            pages=["guide/settings.html", "notes.md"],
        ),
        entry(
            id="pg-903",
            kind="unanswerable",
            question="What is quuxify_mode?",
            answer_keywords=[],
            pages=[],
            absent_terms=["quuxify_mode"],
        ),
    )
    assert [i.id for i in load_items([path])] == ["pg-901", "pg-902", "pg-903"]


# --- the checks against documents, on a tiny corpus ---------------------------------------


@pytest.fixture
def tiny(tmp_path: Path) -> dict[str, str]:
    """A two-page corpus loaded through corpus.loaders, as ``python -m evaluation.check`` does."""
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "settings.html").write_text(
        "<html><head><title>Settings</title>"
        '<meta name="description" content="hiddenmetaword">'
        "<script>var scriptword = 1;</script></head>"
        "<body><!-- commentword --><h1>Settings</h1>"
        "<p>The <code>frobnicate_limit</code> setting defaults to <b>42</b> widgets.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    (tmp_path / "notes.md").write_text(
        "# Notes\n\nThe janitor process runs nightly and prunes stale widgets.\n",
        encoding="utf-8",
    )
    (tmp_path / "logo.svg").write_text("<svg/>", encoding="utf-8")  # not indexed
    loaded = load_corpus(tmp_path)
    assert sorted(loaded.texts) == ["guide/settings.html", "notes.md"]
    assert loaded.errors == {}
    return loaded.texts


def test_a_sound_entry_passes(tiny: dict[str, str]) -> None:
    assert check_item(item(answer_keywords=[["42 widgets", "42"], ["FROBNICATE"]]), tiny) == []


def test_a_missing_page_is_flagged(tiny: dict[str, str]) -> None:
    problems = check_item(item(pages=["guide/missing.html"]), tiny)
    assert problems == ["pg-901: page 'guide/missing.html' not found in pgdocs"]
    assert check_pages(item(pages=["logo.svg"]), tiny) != []


def test_a_keyword_missing_from_the_page_is_flagged(tiny: dict[str, str]) -> None:
    problems = check_keywords(item(answer_keywords=[["42"], ["43", "forty-three"]]), tiny)
    assert problems == [
        "pg-901: keyword group ['43', 'forty-three'] does not occur in 'guide/settings.html'"
    ]


def test_keywords_count_only_text_the_product_indexes(tiny: dict[str, str]) -> None:
    for word in ("hiddenmetaword", "scriptword", "commentword"):
        assert check_keywords(item(answer_keywords=[[word]]), tiny) != [], word


def test_a_multi_hop_entry_needs_both_pages(tiny: dict[str, str]) -> None:
    pages = ["guide/settings.html", "notes.md"]
    sound = item(kind="multi_hop", pages=pages, answer_keywords=[["42"], ["nightly"]])
    assert check_item(sound, tiny) == []
    one_sided = item(kind="multi_hop", pages=pages, answer_keywords=[["42"], ["widgets"]])
    assert check_keywords(one_sided, tiny) == []  # 'widgets' is on both: each page holds one
    unneeded = item(kind="multi_hop", pages=pages, answer_keywords=[["42"], ["frobnicate"]])
    assert check_keywords(unneeded, tiny) == [
        "pg-901: multi_hop page 'notes.md' holds no keyword group (both pages must be needed)"
    ]
    unsupported = item(kind="multi_hop", pages=pages, answer_keywords=[["42"], ["weekly"]])
    assert "keyword group ['weekly'] does not occur in" in check_keywords(unsupported, tiny)[0]


def test_a_paraphrase_that_leaks_its_keyword_is_flagged(tiny: dict[str, str]) -> None:
    leaky = item(kind="paraphrase", question="How many widgets? Is it 42?")
    assert check_item(leaky, tiny) == ["pg-901: paraphrase question contains the keyword '42'"]
    fine = item(kind="paraphrase", question="How many gadgets may be twiddled by default?")
    assert check_item(fine, tiny) == []
    # Other kinds may name their keywords.
    assert check_paraphrase(item(question="Is frobnicate_limit 42?")) == []


def test_an_absent_term_that_is_present_is_flagged(tiny: dict[str, str]) -> None:
    def unanswerable(term: str) -> EvalItem:
        return item(
            kind="unanswerable",
            question=f"What does {term} do?",
            answer_keywords=[],
            pages=[],
            absent_terms=[term],
        )

    assert check_item(unanswerable("quuxify_mode"), tiny) == []
    assert check_absent_terms(unanswerable("Janitor Process"), tiny) == [
        "pg-901: absent term 'Janitor Process' occurs in notes.md"
    ]
    assert check_absent_terms(unanswerable("scriptword"), tiny) == []  # not indexed text


def test_duplicate_ids_are_flagged_by_the_pure_check(tiny: dict[str, str]) -> None:
    items = [item(), item(), item(id="pg-902")]
    assert check_unique_ids(items) == ["pg-901: id used by 2 entries"]
    assert check_items(items, {"pgdocs": tiny})[0] == "pg-901: id used by 2 entries"
    assert check_items([item()], {}) == ["pg-901: corpus pgdocs is not loaded"]


def test_the_command_passes_and_fails_on_a_given_corpus(
    tmp_path: Path, tiny: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    good = write_jsonl(data / "pgdocs.dev.jsonl", entry())
    assert main([str(good), "--root", f"pgdocs={tmp_path}"]) == 0
    out = capsys.readouterr().out
    assert "pgdocs   dev        1  (answerable 1, multi_hop 0," in out
    assert out.rstrip().endswith("OK: every entry holds against its corpus")

    bad = write_jsonl(data / "pgdocs.heldout.jsonl", entry(id="pg-902", split="heldout"))
    bad_paraphrase = entry(id="pg-903", split="heldout", kind="paraphrase", question="42?")
    write_jsonl(bad, entry(id="pg-902", split="heldout", pages=["nope.html"]), bad_paraphrase)
    assert main([str(good), str(bad), "--root", f"pgdocs={tmp_path}"]) == 1
    out = capsys.readouterr().out
    assert "pg-902: page 'nope.html' not found in pgdocs" in out
    assert "pg-903: paraphrase question contains the keyword '42'" in out
    assert "FAILED: 2 problem(s)" in out

    broken = write_jsonl(data / "broken.jsonl", "{")
    assert main([str(broken)]) == 1
    assert "data/broken.jsonl:1: not valid JSON" in capsys.readouterr().out

    assert main([str(good), "--root", f"pgdocs={tmp_path / 'absent'}"]) == 1
    assert "install the Debian package postgresql-doc-15" in capsys.readouterr().out


# --- the shipped entries against the installed manuals (CI installs them) -----------------


@pytest.mark.parametrize("corpus", ["pgdocs", "gitdocs"])
def test_shipped_entries_hold_against_the_installed_corpus(
    corpus: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = CORPUS_ROOTS[corpus]
    if not root.is_dir():
        pytest.fail(
            f"{root} is missing: install the Debian package {CORPUS_PACKAGES[corpus]} "
            "(apt-get install -y " + CORPUS_PACKAGES[corpus] + ")",
            pytrace=False,
        )
    status = main([str(path) for path in dataset_paths(None, corpus)])
    out = capsys.readouterr().out
    assert status == 0, out
