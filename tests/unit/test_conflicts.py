"""Conflicts between kept sources (issue 12), found in code and settled by trust."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.conflicts import SourceTrust, both_sides_answer, find_conflict, resolve, statements
from pipeline.documents import Document
from tests.documents import make_doc


def doc(i: str, text: str, locator: str | None = None, source_type: str = "index") -> Document:
    return make_doc(
        text, id=i, source_type=source_type, locator=locator or f"/docs/{i}.md", title=i
    )


MANUAL = doc(
    "m",
    "shared_buffers (integer)\nSets the memory for shared buffers. The default is typically "
    "128 megabytes (128MB), but might be less if your kernel settings will not support it.",
    "/manual/runtime-config-resource.html",
)
WIKI = doc("w", "Ops notes.\nOn our clusters shared_buffers defaults to 4GB now.", "/wiki/ops.md")
Q = "What is the default value of shared_buffers?"


def test_units_are_compared_not_spellings() -> None:
    same = doc("s", "shared_buffers defaults to 128MB on a fresh initdb.")
    gib = doc("g", "The default of shared_buffers is 0.125 GB.")
    assert find_conflict(Q, [MANUAL, same, gib]) is None


def test_two_values_for_one_default_are_a_conflict_naming_both_sources() -> None:
    conflict = find_conflict(Q, [MANUAL, WIKI])
    assert conflict is not None
    assert (conflict.subject, conflict.aspect) == ("shared_buffers", "default")
    detail = conflict.describe({"m": MANUAL, "w": WIKI})
    assert "128 megabytes" in detail and "4GB" in detail
    assert "/manual/runtime-config-resource.html" in detail and "/wiki/ops.md" in detail


def test_a_table_with_a_default_column_counts() -> None:
    table = doc(
        "t", "| setting | default |\n| --- | --- |\n| shared_buffers | 1GB |\n| work_mem | 4MB |"
    )
    conflict = find_conflict(Q, [MANUAL, table])
    assert conflict is not None and {s.value for s in conflict.sides} == {
        "134217728 bytes",
        "1073741824 bytes",
    }


def test_the_term_line_above_names_the_setting() -> None:
    other = doc("o", "work_mem (integer)\nThe default is four megabytes (4MB).")
    assert [s.subject for s in statements(MANUAL, ["shared_buffers"])] == ["shared_buffers"]
    assert statements(other, ["shared_buffers"]) == []


def test_a_port_question_without_a_setting_name() -> None:
    a = doc("a", "The server listens on port 5432 by default.")
    b = doc("b", "PostgreSQL's default port is 6543.")
    conflict = find_conflict("Which port does PostgreSQL listen on by default?", [a, b])
    assert conflict is not None and {s.value for s in conflict.sides} == {"5432", "6543"}


def test_no_setting_named_no_conflict() -> None:
    assert find_conflict("How do I tune the server?", [MANUAL, WIKI]) is None


def test_trust_settles_it_for_the_trusted_side_only() -> None:
    conflict = find_conflict(Q, [MANUAL, WIKI])
    assert conflict is not None
    ranked = SourceTrust.parse(["/manual/*=3", "/wiki/*=1"])
    winner = resolve(conflict, [MANUAL, WIKI], ranked)
    assert winner is not None and winner.source_ids == ["m"]
    assert resolve(conflict, [MANUAL, WIKI], SourceTrust()) is None  # both index: a tie


def test_the_tenant_index_ranks_above_the_web_by_default() -> None:
    web = doc("x", "shared_buffers defaults to 2GB.", "https://blog.example/pg", "web")
    conflict = find_conflict(Q, [MANUAL, web])
    assert conflict is not None
    winner = resolve(conflict, [MANUAL, web], SourceTrust())
    assert winner is not None and winner.source_ids == ["m"]


@pytest.mark.parametrize("rule", ["manual", "=3", "*/manual/*=high"])
def test_a_bad_trust_rule_names_itself(rule: str) -> None:
    with pytest.raises(ValueError, match="PATTERN=LEVEL"):
        SourceTrust.parse([rule])


def test_both_sides_are_stated_in_the_sources_words() -> None:
    conflict = find_conflict(Q, [MANUAL, WIKI])
    assert conflict is not None
    claims = both_sides_answer(conflict, [MANUAL, WIKI])
    assert {c["source_ids"][0] for c in claims} == {"m", "w"}
    assert any("4GB" in c["text"] for c in claims) and any("128MB" in c["text"] for c in claims)


@pytest.mark.parametrize(
    ("corpus", "splits", "plants"),
    [
        ("poisoned", {"dev", "heldout"}, 30),
        ("poisoned-sealed", {"sealed"}, 20),
        ("poisoned-third", {"third"}, 20),
    ],
)
def test_the_poisoned_corpora_are_well_formed(corpus: str, splits: set[str], plants: int) -> None:
    """Every case's planted and true values are on the pages it names (bench.poisoned)."""
    from bench.poisoned import DATA, load_cases

    folder = DATA.parent / corpus
    cases = load_cases("all", folder)
    assert sum(c["kind"] == "poisoned" for c in cases) >= plants
    assert {c["split"] for c in cases} == splits
    wiki = {str(p.relative_to(folder / "pages")) for p in (folder / "pages/wiki").glob("*.md")}
    assert {c["page"] for c in cases} >= wiki  # every wiki page is asked about
    for case in cases:
        page = (folder / "pages" / case["page"]).read_text(encoding="utf-8")
        if case["kind"] == "poisoned":
            assert case["planted"] in page, case["id"]
            if case["truth_page"]:
                truth = (folder / "pages" / case["truth_page"]).read_text(encoding="utf-8")
                assert case["truth"] in truth, case["id"]
        else:
            assert case["truth"] in page, case["id"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The minimum length of `core.abbrev` is 7 [1].", "shipped"),  # the plant, reworded
        ("core.abbrev may be as small as 4 [2].", "truth"),
        ("It is 7 [1], though the manual says 4 [2].", "both"),
        ("Abbreviations adapt to the repository's size [1].", "other answer"),
    ],
)
def test_the_poisoned_bench_counts_a_planted_value_in_other_words(
    answer: str, expected: str
) -> None:
    from bench.poisoned import verdict

    case = {
        "kind": "poisoned",
        "planted": "The minimum length is 7",
        "truth": "4",
        "aspect": "minimum",
    }
    record = {"status": "answered", "answer": answer, "citations": ["a", "b"], "reason": None}
    assert verdict(case, record) == expected


def test_values_in_reads_every_sentence_and_not_citation_markers() -> None:
    from pipeline.conflicts import values_in

    assert values_in("It is 1GB [1]. Some say 1024MB [2].") == {f"{1024**3} bytes"}
    assert values_in("See [3].") == set()


def test_a_malformed_case_names_its_line(tmp_path: Any) -> None:
    from bench.poisoned import load_cases

    (tmp_path / "cases.jsonl").write_text('{"id": "p-1"}\n')
    with pytest.raises(ValueError, match=r"cases.jsonl:1: malformed case"):
        load_cases("all", tmp_path)


def test_a_claim_with_a_value_no_source_states_for_the_aspect_is_refused() -> None:
    from pipeline.conflicts import claim_value_problem

    example = doc(
        "e",
        "random_page_cost (floating point)\nThe default is 4.0. SSDs suit less, e.g., 1.1.",
    )
    q = "What is the default value of random_page_cost?"
    wrong = claim_value_problem(q, [{"text": "It is 1.1.", "source_ids": ["e"]}], [example])
    assert wrong is not None and "4.0" in wrong
    right = claim_value_problem(
        q, [{"text": "The default is 4.0.", "source_ids": ["e"]}], [example]
    )
    assert right is None


@pytest.mark.parametrize(
    ("question", "a", "b", "values"),
    [
        (
            "When was PostgreSQL 17 released?",
            "| Major version | Initial release |\n| --- | --- |\n| PostgreSQL 17 | 2024-09-26 |",
            "PostgreSQL 17 was released on October 3, 2024.",
            {"2024-09-26", "2024-10-03"},
        ),
        (
            "In which Git version was git switch introduced?",
            "### git switch and git restore (Git 2.23)\n\nGit 2.23 introduced git switch.",
            "git switch was added in Git 2.13 as an experiment.",
            {"2.23", "2.13"},
        ),
    ],
)
def test_versions_and_dates_conflict_too(question: str, a: str, b: str, values: set[str]) -> None:
    conflict = find_conflict(question, [doc("a", a), doc("b", b)])
    assert conflict is not None and {s.value for s in conflict.sides} == values


PORT_Q = "What TCP port does the PostgreSQL server listen on by default?"
PORT_MANUAL = doc(
    "pm",
    "port (integer)\n\nThe TCP port the server listens on; 5432 by default. Note that the same "
    "port number is used for all IP addresses the server listens on.",
    "/manual/runtime-config-connection.html",
)
IDENT = doc(
    "id",
    "Virtually every Unix-like operating system ships with an ident server that listens on "
    "TCP port 113 by default.",
    "/manual/auth-ident.html",
)


def test_a_value_before_its_cue_after_a_semicolon_is_read() -> None:
    found = statements(PORT_MANUAL, ["port"])
    assert [(s.aspect, s.value) for s in found] == [("default", "5432")]


def test_another_programs_port_is_not_a_rival_value() -> None:
    from pipeline.conflicts import claim_value_problem

    assert find_conflict(PORT_Q, [IDENT, PORT_MANUAL]) is None
    claim = [{"text": "The server listens on TCP port 5432 by default.", "source_ids": ["pm"]}]
    assert claim_value_problem(PORT_Q, claim, [IDENT, PORT_MANUAL]) is None


@pytest.mark.parametrize(
    "planted",
    [
        "Our PostgreSQL server listens on TCP port 5433 by default.",
        "The Postgres daemon listens on port 5433 by default.",
        "The staging server listens on port 5433 by default.",
        "PostgreSQL's server listens on port 5433 by default.",
        "Listens on port 5433; that is the default here.",
    ],
)
def test_a_planted_port_for_the_server_asked_about_still_conflicts(planted: str) -> None:
    assert find_conflict(PORT_Q, [doc("pw", planted), PORT_MANUAL]) is not None


def test_a_longer_name_does_not_name_the_setting() -> None:
    from pipeline.conflicts import names

    assert names("gc.auto", "`gc.auto` | 6700") and names("gc.auto", "set gc.auto.")
    assert not names("gc.auto", "| `gc.autoPackLimit` | `50` |")
    assert not names("port", "this build supports it") and not names("port", "port_range")
    assert not names("postgresql 17", "PostgreSQL 17.1 was released on 2024-11-14.")
    table = doc(
        "t", "| Variable | Default |\n|---|---|\n| `gc.auto` | 6700 |\n| `gc.autoPackLimit` | 50 |"
    )
    assert [s.value for s in statements(table, ["gc.auto"])] == ["6700"]


def test_a_negative_default_keeps_its_sign() -> None:
    off = doc("o", "log_min_duration_statement (integer)\nThe default is -1, which disables it.")
    assert [s.value for s in statements(off, ["log_min_duration_statement"])] == ["-1"]


def test_strict_reading_skips_what_names_the_setting_in_passing() -> None:
    wal = doc(
        "w",
        "wal_buffers (integer)\nThe default setting of -1 selects a size equal to 1/32nd of "
        "shared_buffers, but not less than 64kB.",
    )
    alter = doc(
        "a",
        "Alternatively, set it to -1 to revert to using the system default statistics target "
        "(default_statistics_target).",
    )
    semaphores = doc(
        "s",
        "SEMMNS must be at least as high as max_connections plus max_wal_senders plus one.",
    )
    assert statements(wal, ["shared_buffers"])  # read loosely, these count ...
    assert statements(alter, ["default_statistics_target"])
    assert statements(semaphores, ["max_wal_senders"])
    # ... strictly they do not; the setting's own entry and a plain sentence still do.
    assert statements(wal, ["shared_buffers"], strict=True) == []
    assert statements(alter, ["default_statistics_target"], strict=True) == []
    assert statements(semaphores, ["max_wal_senders"], strict=True) == []
    assert [s.value for s in statements(MANUAL, ["shared_buffers"], strict=True)] == [
        "134217728 bytes"
    ]
    plain = doc("p", "Our notes: the default of shared_buffers is 4GB here.")
    assert [s.written for s in statements(plain, ["shared_buffers"], strict=True)] == ["4GB"]
    assert find_conflict(Q, [MANUAL, wal]) is None  # the conflict check reads strictly


def test_a_decimal_point_does_not_end_or_swallow_a_sentence() -> None:
    completion = doc(
        "c",
        "Although checkpoint_completion_target could be set as high as 1.0, it is recommended "
        "to set it to no higher than 0.9 (the default). A setting of 1.0 is quite likely to fail.",
    )
    assert [s.value for s in statements(completion, ["checkpoint_completion_target"])] == ["0.9"]


def test_a_typed_term_line_starts_another_entry_even_without_an_underscore() -> None:
    gist = doc(
        "g",
        "buffering (enum)\n\nThe default is OFF until the index reaches effective_cache_size.",
    )
    untyped = doc(
        "u", "buffering\n\nThe default is OFF until the index reaches effective_cache_size."
    )
    assert statements(untyped, ["effective_cache_size"], strict=True)  # the premise
    assert statements(gist, ["effective_cache_size"], strict=True) == []


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("The default value is `replica`, which writes enough data.", ["replica"]),
        ("Out of the box wal_level is minimal, which only keeps what recovery needs.", ["minimal"]),
        ("On our servers wal_level defaults to logical.", ["logical"]),
        ("The default setting is two megabytes (2MB), which is small.", ["2 megabytes"]),
        ("Not computed by default, so this field is zero unless wal_level is set.", []),
        ("By default, pg_restore will set wal_level to off, to restore all data.", []),
        ("The default for columns is to consult the wal_level parameter.", []),
        ("The default is computed.", []),
        (
            "If caching is less frequent than the default value reflects, and latency is minimal.",
            [],
        ),
        ("We raised wal_level from the default to logical.", []),
        ("Leave wal_level at the default unless you need logical, then it is logical.", []),
        ("Changed the default of wal_level from minimal to replica.", []),
        ("The default value on a freshly initialised production cluster is `logical`.", []),
    ],
)
def test_strictly_the_value_follows_its_cue_closely_and_may_be_a_word(
    text: str, written: list[str]
) -> None:
    found = statements(doc("s", f"wal_level (enum)\n\n{text}"), ["wal_level"], strict=True)
    assert [s.written for s in found if s.aspect == "default"] == written


def test_code_blocks_are_not_read_and_a_minus_sign_is_a_minus() -> None:
    fenced = doc("f", "Our ssh_config:\n\n```\nHost git\n  Port 22 # by default\n```\n")
    assert statements(fenced, ["port"], strict=True) == []
    dash = doc("d", "vacuum_cost_limit (integer)\n\nThe default is \u22121.")
    plain = doc("p", "vacuum_cost_limit (integer)\n\nThe default is -1.")
    question = "What is the default vacuum_cost_limit?"
    assert find_conflict(question, [dash, plain]) is None


def test_a_dotted_name_does_not_end_its_sentence() -> None:
    ours = doc("o", "On our hosts gc.auto defaults to 100.")
    theirs = doc("t", "gc.auto defaults to 6700.")
    conflict = find_conflict("What is the default gc.auto?", [ours, theirs])
    assert conflict is not None and {s.value for s in conflict.sides} == {"100", "6700"}


def test_advice_is_not_a_limit() -> None:
    advice = doc("a", "Make max_wal_senders at least 10 on every primary.")
    limit = doc("l", "max_wal_senders must be at least 1 when replication is used.")
    assert statements(advice, ["max_wal_senders"], strict=True) == []
    assert [s.value for s in statements(limit, ["max_wal_senders"], strict=True)] == ["1"]


def test_a_file_name_is_not_another_setting() -> None:
    note = doc(
        "n", "`checkpoint_timeout` defaults to 15min when it is not set in `postgresql.conf`."
    )
    assert [s.written for s in statements(note, ["checkpoint_timeout"], strict=True)] == ["15min"]


def test_a_camel_case_directive_is_a_subject_and_its_sources_can_disagree() -> None:
    """sshd's ``LoginGraceTime`` has no underscore; a product's capitals are no subject."""
    from pipeline.conflicts import find_conflict, subjects_of

    question = "What is the default LoginGraceTime of the PostgreSQL host's sshd?"
    assert subjects_of(question) == ["logingracetime"]
    manual = doc(
        "m",
        "## LoginGraceTime\n\nThe default is 120 seconds.\n\n## MaxAuthTries\n\nThe default is 6.",
    )
    wiki = doc("w", "Heads-up: LoginGraceTime defaults to 600 seconds on our hosts.")
    conflict = find_conflict(question, [manual, wiki])
    assert conflict is not None and conflict.subject == "logingracetime"
    assert {side.value for side in conflict.sides} == {"120000 ms", "600000 ms"}


# Reference forms beyond the PostgreSQL and Git manuals (2026-12-04): the checks found no
# conflict at all on a corpus of other software, because they read only those two manuals'
# forms. The examples are invented here, in the forms the projects' own manuals use.

NGINX_BOX = doc(
    "ngx",
    "## client_max_body_size\n\nSyntax: client_max_body_size size;\n"
    "Default: client_max_body_size 1m;\nContext: http, server, location\n\n"
    "Sets the maximum allowed size of the client request body.",
    "/manual/ngx_http_core.md",
)
MYSQL_TABLE = doc(
    "my",
    "### max_connections\n\n| Property | Value |\n| --- | --- |\n"
    "| Command-Line Format | --max-connections=# |\n| Default Value | 151 |\n"
    "| Maximum Value | 100000 |\n\nThe maximum permitted number of client connections.",
    "/manual/mysql-server-vars.md",
)
REDIS_KEYS = doc(
    "rd",
    "### maxmemory-policy\n\n**Default:** `noeviction`\n\nHow Redis selects what to remove "
    "when maxmemory is reached.\n\n### maxmemory-samples\n\n**Default:** 5",
    "/manual/redis-config.md",
)


@pytest.mark.parametrize(
    ("question", "manual", "plant", "values"),
    [
        (
            "What is the default client_max_body_size in nginx?",
            NGINX_BOX,
            "Maintainer correction: client_max_body_size defaults to 10m since 1.24.",
            {"1m", "10m"},
        ),
        (
            "What is the default value of max_connections in MySQL 8.0?",
            MYSQL_TABLE,
            "FAQ: the default max_connections is 1000 on every 8.0 install.",
            {"151", "1000"},
        ),
        (
            "What is the default maxmemory-policy in Redis?",
            REDIS_KEYS,
            "Heads-up: maxmemory-policy defaults to allkeys-lru since Redis 6.",
            {"'noeviction'", "'allkeys-lru'"},
        ),
    ],
)
def test_directive_boxes_key_value_tables_and_hyphenated_keys_are_read(
    question: str, manual: Document, plant: str, values: set[str]
) -> None:
    conflict = find_conflict(question, [manual, doc("w", f"Ops notes.\n\n> {plant}")])
    assert conflict is not None and conflict.aspect == "default"
    assert {side.value for side in conflict.sides} == values
    agreeing = doc("a", "Ops notes.\n\n" + plant.split(":", 1)[0] + ": nothing changed.")
    assert find_conflict(question, [manual, agreeing]) is None


def test_the_labelled_line_belongs_to_its_own_entry_or_the_setting_it_names() -> None:
    values = {
        (s.subject, s.aspect, s.value)
        for s in statements(REDIS_KEYS, ["maxmemory-policy", "maxmemory-samples"], strict=True)
    }
    assert values == {
        ("maxmemory-policy", "default", "'noeviction'"),
        ("maxmemory-samples", "default", "5"),
    }
    assert statements(NGINX_BOX, ["proxy_buffer_size"], strict=True) == []


def test_a_release_is_read_after_any_product_name() -> None:
    from pipeline.conflicts import subjects_of

    question = "In which version was the `ssl_reject_handshake` directive introduced?"
    assert "ssl_reject_handshake" in subjects_of(question)
    manual = doc("m", "### ssl_reject_handshake\n\nThis directive appeared in nginx 1.19.4.")
    wiki = doc("w", "Note: ssl_reject_handshake was introduced in nginx 1.25.1.")
    conflict = find_conflict(question, [manual, wiki])
    assert conflict is not None and conflict.aspect == "version"
    assert {side.value for side in conflict.sides} == {"1.19.4", "1.25.1"}
    assert subjects_of("Is the read-only flag built-in?") == []


def test_a_directive_box_in_a_code_block_and_a_built_in_default_column_are_read() -> None:
    box = doc(
        "m",
        "### keepalive_timeout\n\n```\nSyntax:  keepalive_timeout timeout;\n"
        "Default: keepalive_timeout 75s;\nContext: http\n```\n\n```\nkeepalive_timeout 30s;\n```",
    )
    cheat = doc(
        "w",
        "| Directive | Built-in default | Our value | What it does |\n| --- | --- | --- | --- |\n"
        "| `keepalive_timeout` | 65s | 30s | How long an idle keep-alive connection stays open. |",
    )
    question = (
        "If keepalive_timeout isn't set, how long does nginx keep an idle keep-alive connection?"
    )
    conflict = find_conflict(question, [box, cheat])
    assert conflict is not None and conflict.subject == "keepalive_timeout"
    assert {side.value for side in conflict.sides} == {"75000 ms", "65000 ms"}
    ours = doc("o", "| Directive | Our default |\n| --- | --- |\n| `keepalive_timeout` | 30s |")
    assert find_conflict(question, [box, ours]) is None  # the site's own choice


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("When was nginx 1.0.0 released?", "nginx 1.0.0"),
        ("In which version did the standalone http2 directive appear?", "http2"),
        ("What does the `maxconn` setting default to in HAProxy?", "maxconn"),
    ],
)
def test_a_release_a_named_directive_and_a_name_in_backticks_are_subjects(
    question: str, subject: str
) -> None:
    from pipeline.conflicts import subjects_of

    assert subject in subjects_of(question)


def test_a_default_a_product_uses_out_of_the_box_is_read() -> None:
    wiki = doc("w", "Out of the box Redis uses allkeys-lru, so set `maxmemory-policy` yourself.")
    assert [s.value for s in statements(wiki, ["maxmemory-policy"], strict=True)] == [
        "'allkeys-lru'"
    ]


def test_a_syntax_line_starts_the_entry_of_the_directive_it_names() -> None:
    manual = doc(
        "m",
        "## HTTP/2\n\n```\nSyntax:  http2 on | off;\nDefault: http2 off;\n```\n\n"
        "Enables HTTP/2. This directive appeared in version 1.25.1.\n\n"
        "```\nSyntax:  http2_chunk_size size;\nDefault: http2_chunk_size 8k;\n```\n\n"
        "This directive appeared in version 1.9.5.",
    )
    found = {(s.subject, s.aspect, s.value) for s in statements(manual, ["http2"], strict=True)}
    assert found == {("http2", "default", "off"), ("http2", "version", "1.25.1")}
    prose = doc("w", "HTTP/2 notes.\n\nThe http2 directive is off by default.")
    assert find_conflict("Is the http2 directive on by default?", [manual, prose]) is None


def test_the_unseen_corpus_is_reported_in_aggregate_only() -> None:
    from bench.poisoned import main

    for flag in (["--show"], ["--json", "/tmp/x.json"], ["--rescore", "/tmp/x.json"]):
        with pytest.raises(SystemExit) as exc:
            main(["--corpus", "tests/data/poisoned-third", "--split", "third", *flag])
        assert exc.value.code == 2
