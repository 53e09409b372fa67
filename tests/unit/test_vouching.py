"""The vouching rule in code: which facts a claim gives, and who vouches for them."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.conflicts import SourceTrust, quantities
from pipeline.documents import Document
from pipeline.vouching import facts, recallable, unvouched
from tests.documents import make_doc

TRUST = SourceTrust.parse(["*/manual/*=3", "*/wiki/*=1"])


def doc(locator: str, text: str) -> Document:
    return make_doc(text, id=locator, title=locator, locator=f"/docs/{locator}", score=1.0)


def claim(text: str) -> Any:
    return {"text": text, "source_ids": ["wiki/a.md"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is 256MB.", {"268435456 bytes"}),
        ("three workers", {"3"}),
        ("released on May 28, 2014 [2]", {"2014-05-28"}),
        ("Git 2.23.1 fixed it", {"2.23.1"}),
        ("run `pg_ctl stop -m fast` now", {"term:pg_ctl stop -m fast"}),
        ("pg_dumpall --globals-only", {"term:pg_dumpall", "flag:--globals-only"}),
        ("pg_dumpall \u2013globals-only", {"term:pg_dumpall", "flag:--globals-only"}),
        ("toggle it with \\x", {"flag:\\x"}),
        ("the escaped pg\\_resetwal", {"term:pg_resetwal"}),
        ("`$ pg_ctl promote` [1, 2]", {"term:pg_ctl promote"}),
        ("Added in v2.13, up to 1,600 columns", {"version 2.13", "1600"}),
        ("at 03:00 on May 28th, 2014", {"03:00", "2014-05-28"}),
        ("gc.auto is 6700", {"term:gc.auto", "6700"}),
        ("a well-known option, e.g. this one", set()),
        ("The answer is in the manual.", set()),
    ],
)
def test_the_facts_a_claim_gives(text: str, expected: set[str]) -> None:
    assert set(facts(text)) == expected


def test_quantities_keep_units_apart_and_dates_whole() -> None:
    found = quantities("1GB, 1024MB, 200ms, 0.2 s and 12 Feb 2024")
    assert set(found) == {"1073741824 bytes", "200 ms", "2024-02-12"}
    assert found["1073741824 bytes"] == "1GB"


def test_versions_are_not_decimals_and_units_the_list_lacks_stay_whole() -> None:
    assert set(quantities("Git 2.10")) == {"version 2.10"} != set(quantities("Git 2.1"))
    assert set(quantities("v2.13")) == set(quantities("Git 2.13"))
    assert set(quantities("10 mins or 30m, 10k")) == {"600000 ms", "30m", "10k"}
    assert set(quantities("June 2023")) == {"2023-06"} != set(quantities("May 2023"))


def test_a_number_too_large_for_a_float_is_no_crash() -> None:
    assert quantities("9" * 400 + " bytes") == {}


def test_a_fact_only_the_wiki_states_is_unvouched_and_named() -> None:
    sources = {
        "wiki/a.md": doc("wiki/a.md", "Replicas listen on port 6543."),
        "manual/b.md": doc("manual/b.md", "The server listens on port 5432 by default."),
    }
    found = unvouched("Which port?", [claim("Replicas use port 6543.")], sources, TRUST, 3)

    assert found is not None and found.fact == "6543"
    assert found.sources == (("/docs/wiki/a.md", 1),)
    assert found.describe() == (
        "'6543' in the claim 'Replicas use port 6543.' is stated only by /docs/wiki/a.md "
        "(trust 1); no source ranked 3 or above states it"
    )


def test_a_trusted_source_vouches_in_its_own_units() -> None:
    sources = {
        "wiki/a.md": doc("wiki/a.md", "We keep it at 1GB."),
        "manual/b.md": doc("manual/b.md", "The default is 1024MB."),
    }
    assert unvouched("What size?", [claim("It is 1GB.")], sources, TRUST, 3) is None
    assert unvouched("What size?", [claim("It is 2GB.")], sources, TRUST, 3) is not None


def test_a_fact_the_question_gives_needs_no_voucher() -> None:
    sources = {"wiki/a.md": doc("wiki/a.md", "PostgreSQL 17 came out in the autumn.")}
    ok = unvouched("When was PostgreSQL 17 released?", [claim("PostgreSQL 17 came out.")],
                   sources, TRUST, 3)  # fmt: skip
    assert ok is None


def test_a_flag_keeps_its_case_and_a_fact_from_no_source_says_so() -> None:
    sources = {"manual/b.md": doc("manual/b.md", "git branch -d deletes a merged branch.")}
    found = unvouched("How?", [claim("Run git branch -D.")], sources, TRUST, 3)
    assert found is not None and found.fact == "-D"
    assert found.describe().endswith(
        "is stated by none of the sources; no source ranked 3 or above states it"
    )
    assert unvouched("How?", [claim("Run git branch -d.")], sources, TRUST, 3) is None


def test_a_term_is_vouched_only_whole() -> None:
    wiki = doc("wiki/a.md", "Use pg_dump -f out.sql")
    for manual_text, vouched in [("pg_dump -Fd writes a directory", False),
                                 ("pg_dump writes to a file with -f name.", True)]:  # fmt: skip
        sources = {"wiki/a.md": wiki, "manual/b.md": doc("manual/b.md", manual_text)}
        found = unvouched("How?", [claim("Pass -f to pg_dump.")], sources, TRUST, 3)
        assert (found is None) is vouched, manual_text


def test_the_level_is_the_tenants_and_a_level_at_or_below_any_source_vouches_for_all() -> None:
    sources = {"wiki/a.md": doc("wiki/a.md", "Replicas listen on port 6543.")}
    assert unvouched("Which port?", [claim("Port 6543.")], sources, TRUST, 1) is None
    assert unvouched("Which port?", [claim("Port 6543.")], sources, TRUST, 2) is not None


def test_a_later_round_without_a_conflict_drops_the_both_sides_record() -> None:
    """Else its exemption from vouching would cover the model's answer of the new round."""
    from pipeline.deps import Deps, Limits, Models
    from pipeline.settling import settle_conflict

    stale = {"subject": "port", "aspect": "port", "values": {}, "settled": "both",
             "winner": None, "detail": "two ports"}  # fmt: skip
    graded = {"document": doc("wiki/a.md", "Use `kill -9` on it."), "relevant": True,
              "score": 0.9}  # fmt: skip
    state: Any = {"question": "How do I stop it?", "conflict": stale, "graded": [graded]}
    deps = Deps("t", Models.single(None), None, None, None, limits=Limits(), vouch_trust=3)  # type: ignore[arg-type]

    assert settle_conflict(state, deps) == {"conflict": None}
    state["conflict"] = dict(stale, settled="trust")
    assert settle_conflict(state, deps) == {}  # a trust settlement still stands


def test_a_value_written_as_a_word_is_vouched_only_by_a_source_that_gives_it() -> None:
    wiki = doc("wiki/a.md", "Out of the box wal_level is minimal.")
    question = "What is the default wal_level?"
    for manual_text, vouched in [
        ("wal_level (enum): the default value is `replica`.", False),
        (
            "wal_level (enum)\n\nWith minimal, no archiving is possible; the default is minimal.",
            True,
        ),
    ]:
        sources = {"wiki/a.md": wiki, "manual/b.md": doc("manual/b.md", manual_text)}
        found = unvouched(question, [claim("It is minimal.")], sources, TRUST, 3)
        assert (found is None) is vouched, manual_text
    switch = {"manual/b.md": doc("manual/b.md", "Turn it off only for tests; the default is on.")}
    assert unvouched("Is fsync on by default?", [claim("The default is off.")], switch, TRUST, 3)


def test_an_earlier_answer_is_recalled_only_when_every_source_it_cites_vouches() -> None:
    def turn(*locators: str) -> Any:
        citations = [{"n": i, "id": loc, "locator": f"/docs/{loc}", "title": "t",
                      "source_type": "index"} for i, loc in enumerate(locators, 1)]  # fmt: skip
        return {"question": "q", "status": "answered", "answer": "a", "citations": citations}

    assert recallable(turn("wiki/a.md"), TRUST, None)
    assert recallable(turn("manual/b.md"), TRUST, 3)
    assert not recallable(turn("manual/b.md", "wiki/a.md"), TRUST, 3)


def test_a_trusted_source_vouches_only_where_it_speaks_of_the_same_setting() -> None:
    """The manual's "64" of another setting does not vouch for a wiki's "64" of this one."""
    wiki = doc("wiki/a.md", "autovacuum_max_workers defaults to 64.")
    question = "What is the default of autovacuum_max_workers?"
    for manual_text, vouched in [
        ("## max_locks_per_transaction (integer)\n\nThe default is 64.", False),
        ("| Setting | Default |\n|---|---|\n| `max_locks_per_transaction` | 64 |", False),
        ("## autovacuum_max_workers\n\nThe default is three.\n\n## max_locks\n\nIt is 64.", False),
        ("## autovacuum_max_workers (integer)\n\nThe default is 64.", True),
        ("| Setting | Default |\n|---|---|\n| `autovacuum_max_workers` | 64 |", True),
        ("- `work_mem`: 4MB\n- `autovacuum_max_workers`: 64", True),
    ]:
        sources = {"wiki/a.md": wiki, "manual/b.md": doc("manual/b.md", manual_text)}
        found = unvouched(question, [claim("It is 64.")], sources, TRUST, 3)
        assert (found is None) is vouched, manual_text
    listed = {"wiki/a.md": wiki, "manual/b.md": doc("manual/b.md", "- `a_b`: 3\n- `x_y`: 64")}
    assert unvouched(question, [claim("It is 64.")], listed, TRUST, 3) is not None
    del listed["wiki/a.md"]  # no lower-ranked source states it: the manual's 64 is no rival's
    assert unvouched(question, [claim("It is 64.")], listed, TRUST, 3) is None


def test_without_a_name_the_passage_must_share_the_claims_words() -> None:
    question = "Which TCP port does the server listen on by default?"
    for manual_text, vouched in [
        ("The TCP port the server listens on; 5433 by default.", True),
        ("Replication slots: up to 5433 of them.", False),
    ]:
        sources = {
            "wiki/a.md": doc("wiki/a.md", "Our servers listen on 5433."),
            "manual/b.md": doc("manual/b.md", manual_text),
        }
        found = unvouched(question, [claim("It listens on 5433.")], sources, TRUST, 3)
        assert (found is None) is vouched, manual_text
    release = {
        "manual/b.md": doc("manual/b.md", "| Version | Released |\n|--|--|\n| 17 | 2024-09-26 |")
    }
    assert unvouched("When was PostgreSQL 17 released?", [claim("On 2024-09-26.")], release,
                     TRUST, 3) is None  # fmt: skip


def test_a_trusted_source_that_warns_against_a_command_does_not_vouch_for_it() -> None:
    question = "How do I stop the server quickly?"
    for manual_text, command, vouched in [
        ("Use it in emergencies only; never use `kill -KILL` on it.", "kill -KILL", False),
        ("Do not run `pg_resetwal -f` on a running cluster.", "pg_resetwal -f", False),
        ("Run `pg_ctl stop -m immediate` in an emergency.", "pg_ctl stop -m immediate", True),
    ]:
        sources = {"manual/b.md": doc("manual/b.md", manual_text)}
        found = unvouched(question, [claim(f"Run `{command}`.")], sources, TRUST, 3)
        assert (found is None) is vouched, manual_text
