"""What the contradiction judge's reply must bear out before it counts (pipeline.contradiction)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.contradiction import (
    Challenge,
    answer_claim,
    as_conflict,
    contradicted,
    product_names,
)
from pipeline.schemas import PassageAnswers


def doc(i: str, text: str, locator: str) -> Any:
    return {"id": i, "text": text, "locator": locator, "title": locator, "source_type": "index"}


CLAIM = "The autovacuum_naptime sits at 45s on every new cluster."
MANUAL = doc("m1", "autovacuum_naptime (integer): The default is one minute (1min).", "manual/a.md")
OTHER = doc("w2", "On staging we set autovacuum_naptime to 30s for tests.", "wiki/b.md")
FOUND = Challenge(CLAIM, ("w1",), (MANUAL, OTHER), (MANUAL, OTHER))


def test_the_answer_claim_is_the_first_that_states_a_number() -> None:
    claims: Any = [
        {"text": "Autovacuum checks each database in turn.", "source_ids": ["a"]},
        {"text": "It waits 45s between runs.", "source_ids": ["b"]},
    ]
    assert answer_claim(claims) == claims[1]
    assert answer_claim(claims[:1]) == claims[0]
    assert answer_claim([]) is None


def read(*answers: tuple[int, str]) -> PassageAnswers:
    """The model's reading: ``(source, value)`` per passage."""
    return PassageAnswers.model_validate(
        {"answers": [{"source": n, "value": v} for n, v in answers]}
    )


@pytest.mark.parametrize(
    ("answers", "why"),
    [
        ((), "the model read no answer"),
        (((1, ""),), "passage 1 gives none"),
        (((3, "1min"),), "no third passage was shown"),
        (((1, "10min"),), "the passage does not say 10min"),
        (((1, "45s"),), "the claim's own value"),
        (((2, "1min"),), "passage 2 does not say it"),
        (((1, "default"),), "a cue word, not a value"),
    ],
)
def test_a_reading_the_passage_does_not_bear_out_is_no_contradiction(
    answers: tuple[tuple[int, str], ...], why: str
) -> None:
    assert contradicted(FOUND, read(*answers)) is None, why


def test_a_figure_the_claim_already_gives_is_no_other_value() -> None:
    found = Challenge("It waits 45 s, never 1 minute.", ("w1",), (MANUAL,), (MANUAL,))
    assert contradicted(found, read((1, "one minute (1min)"))) is None


def test_a_value_the_passage_states_differs_whatever_its_spacing_or_case() -> None:
    assert contradicted(FOUND, read((2, ""), (1, " 1MIN "))) == (MANUAL, "1MIN")


def test_the_first_differing_passage_is_taken() -> None:
    assert contradicted(FOUND, read((1, "1min"), (2, "30s"))) == (MANUAL, "1min")


def test_a_word_value_differs_only_from_a_claim_without_a_quantity() -> None:
    manual = doc("m1", "The default policy is `noeviction`.", "manual/redis.md")
    worded = Challenge("Redis evicts with allkeys-lru by default.", ("w1",), (manual,), (manual,))
    assert contradicted(worded, read((1, "noeviction"))) == (manual, "noeviction")
    counted = Challenge("It keeps 16 databases, noeviction aside.", ("w1",), (manual,), (manual,))
    assert contradicted(counted, read((1, "policy"))) is None


def test_the_conflict_names_the_setting_the_aspect_and_both_values() -> None:
    conflict = as_conflict("What is the default autovacuum_naptime?", FOUND, MANUAL, "1min")

    assert (conflict.subject, conflict.aspect) == ("autovacuum_naptime", "default")
    assert [side.value for side in conflict.sides] == ["45s", "1min"]
    assert [side.source_ids for side in conflict.sides] == [["w1"], ["m1"]]
    by_id = {"w1": doc("w1", CLAIM, "wiki/vacuum.md"), "m1": MANUAL}
    assert conflict.describe(by_id) == (
        "the sources disagree on the default of autovacuum_naptime: "
        "45s (wiki/vacuum.md) vs 1min (manual/a.md)"
    )


def test_a_claim_with_no_setting_takes_the_questions_subject_or_says_what_it_is() -> None:
    found = Challenge("Redis 6.0 reached general availability in 2021.", ("w1",), (), ())
    when = as_conflict("When did Redis 6.0 reach general availability?", found, MANUAL, "2020")
    assert (when.subject, when.aspect) == ("redis 6.0", "value")
    vague = as_conflict("How long should I wait?", found, MANUAL, "2020")
    assert (vague.subject, vague.aspect) == ("the fact asked for", "value")


def test_the_same_number_in_another_unit_is_another_value() -> None:
    manual = doc("m1", "The maximum size of a string value is 512 MB.", "manual/redis.md")
    found = Challenge("A Redis string value can be at most 512 KB.", ("w1",), (manual,), (manual,))
    assert contradicted(found, read((1, "512 MB"))) == (manual, "512 MB")
    same = Challenge("A string value can be at most 512 megabytes.", ("w1",), (manual,), (manual,))
    assert contradicted(same, read((1, "512 MB"))) is None


def test_only_a_passage_on_the_claims_setting_with_another_quantity_is_shown() -> None:
    from pipeline.contradiction import _passage

    question = "What is the default autovacuum_naptime?"
    assert _passage(question, CLAIM, MANUAL) is not None
    agreeing = doc("w3", "Our autovacuum_naptime default is 45 seconds.", "wiki/c.md")
    assert _passage(question, CLAIM, agreeing) is None  # 45s = 45 seconds
    elsewhere = doc("m2", "The default autovacuum_max_workers is 3.", "manual/d.md")
    assert _passage(question, CLAIM, elsewhere) is None  # another setting
    unit = doc("w4", "A string value can be at most 512 MB.", "manual/r.md")
    kb = "A string value can be at most 512 KB."
    assert _passage("What is the largest string value?", kb, unit) is not None


@pytest.mark.parametrize(
    ("question", "names"),
    [
        (
            "Which TCP port does Redis Sentinel listen on out of the box?",
            {"tcp", "redis", "sentinel"},
        ),
        ("Which OpenSSH version introduced ProxyJump?", {"openssh", "proxyjump"}),
        ("What port does OpenSSH's sshd listen on by default?", {"openssh"}),
        ("If I don't set maxmemory-policy, which policy does Redis use?", {"redis"}),
        ("What is the default autovacuum_naptime?", set()),
    ],
)
def test_the_products_a_question_names(question: str, names: set[str]) -> None:
    assert product_names(question) == names


def test_a_page_about_another_product_is_not_shown() -> None:
    from pipeline.contradiction import _passage

    question = "Which TCP port does Redis Sentinel listen on out of the box?"
    claim = "Redis Sentinel listens on port 16379 out of the box."
    text = "The server listens on its TCP port out of the box: 6379, or none when set to 0."
    server = doc("m1", text, "manual/redis-server.md")
    assert _passage(question, claim, server) is None  # no "Sentinel" in the chunk
    sentinel = {**server, "title": "Redis Sentinel", "id": "m2"}
    assert _passage(question, claim, sentinel) is not None  # named by its title


LINTER = (
    "## Enforced ranges\n\n| Parameter | Minimum | Maximum | Restart needed |\n"
    "|---|---|---|---|\n| `authentication_timeout` | 1s | 600s | no |\n"
)
KEYGEN = "For RSA keys, the minimum size is 1024 bits and the default is 3072 bits."


@pytest.mark.parametrize(
    ("value", "passage", "chunk", "aspect", "other"),
    [
        ("1s", "| `authentication_timeout` | 1s | 600s | no |", LINTER, "default", True),
        ("600s", "| `authentication_timeout` | 1s | 600s | no |", LINTER, "maximum", False),
        ("1024 bits", KEYGEN, KEYGEN, "default", True),
        ("1024 bits", KEYGEN, KEYGEN, "minimum", False),
        ("3072 bits", KEYGEN, KEYGEN, "default", False),
        ("1.1", "On SSDs set it to 1.1; the default 4.0 is for disks.", "", "default", False),
    ],
)
def test_a_value_given_as_another_aspect_is_no_answer(
    value: str, passage: str, chunk: str, aspect: str, other: bool
) -> None:
    from pipeline.contradiction import _of_another_aspect

    assert _of_another_aspect(value, passage, chunk, aspect) is other


def test_a_minimum_read_as_the_default_is_no_contradiction() -> None:
    linter = doc("w9", LINTER, "wiki/config-validation-matrix.md")
    row = {**linter, "text": "| `authentication_timeout` | 1s | 600s | no |"}
    claim = "The default authentication_timeout is 1min."
    found = Challenge(claim, ("m1",), (row,), (linter,), "default")
    assert contradicted(found, read((1, "1s"))) is None
    assert contradicted(Challenge(claim, ("m1",), (row,), (linter,)), read((1, "1s"))) == (
        row,
        "1s",
    )


def decide(question: str, claim: str, other: str, reading: str) -> tuple[Any, Any]:
    """A reviewer's probe: the claim cites a wiki page; ``other`` is a manual page."""
    from pipeline.conflicts import SourceTrust
    from pipeline.contradiction import challenge, challenged_claim

    cited = doc("c1", claim, "wiki/answer.md")
    chosen = challenged_claim(question, [{"text": claim, "source_ids": ["c1"]}])
    assert chosen is not None
    manual = doc("o1", other, "manual/other.md")
    found = challenge(question, chosen, {"c1": cited}, [manual], SourceTrust(), set())
    if found is None:
        return None, None
    return found.passages[0]["text"], contradicted(found, read((1, reading)))


@pytest.mark.parametrize(
    ("question", "claim", "other", "reading"),
    [
        (  # another setting's entry names the claim's only in passing
            "What is the default work_mem?",
            "work_mem defaults to 4MB.",
            "hash_mem_multiplier (floating point)\nUsed to compute the maximum memory hash "
            "operations can use, multiplying work_mem by hash_mem_multiplier. The default "
            "value is 2.0, which makes them use twice the usual work_mem base amount.",
            "2.0",
        ),
        (  # a minimum whose cue is more than 40 characters before it
            "What is the default RSA key size for ssh-keygen?",
            "ssh-keygen makes RSA keys of 3072 bits by default.",
            "The minimum size ssh-keygen accepts for RSA keys is 1024 bits.",
            "1024 bits",
        ),
        (  # a label line
            "What is the default authentication_timeout?",
            "authentication_timeout defaults to 1min.",
            "authentication_timeout\nMinimum: 1s\nMaximum: 600s\nRestart: no",
            "1s",
        ),
        (  # a column header with a full stop
            "What is the default authentication_timeout?",
            "authentication_timeout defaults to 1min.",
            "| Parameter | Min. | Max. | Restart |\n|---|---|---|---|\n"
            "| `authentication_timeout` | 1s | 600s | no |\n",
            "1s",
        ),
        (  # advice
            "What is the default maxmemory-policy in Redis?",
            "The default maxmemory-policy is noeviction.",
            "When Redis is used as a cache, set maxmemory-policy to allkeys-lru so that the "
            "least recently used keys go first.",
            "allkeys-lru",
        ),
        (  # an example
            "What is the default random_page_cost?",
            "random_page_cost defaults to 4.0.",
            "For SSD storage, a lower random_page_cost such as 1.1 is often a better fit.",
            "1.1",
        ),
        (  # a site's own choice
            "What is the default random_page_cost?",
            "random_page_cost defaults to 4.0.",
            "In our production cluster we set random_page_cost = 1.1 on all replicas.",
            "1.1",
        ),
    ],
)
def test_a_reviewers_false_contradictions_are_none(
    question: str, claim: str, other: str, reading: str
) -> None:
    assert decide(question, claim, other, reading)[1] is None


@pytest.mark.parametrize(
    ("claim", "other", "reading"),
    [
        (  # the true value is part of the planted one
            "Redis listens on TCP port 16379 by default.",
            "port: Redis accepts connections on the specified port, default is 6379.",
            "6379",
        ),
        (  # the reading spaced otherwise than the passage
            "The default port Redis listens on is 6380.",
            "port: Redis accepts connections on this port; the default is 6379 (TCP).",
            "6379 ",
        ),
    ],
)
def test_a_reviewers_missed_contradictions_are_read(claim: str, other: str, reading: str) -> None:
    shown, hit = decide("What port does Redis listen on by default?", claim, other, reading)
    assert shown is not None and hit is not None and hit[1].strip() == "6379"


def test_a_reading_of_a_quantity_written_otherwise_still_counts() -> None:
    _, hit = decide(
        "What is the default work_mem?",
        "work_mem defaults to 64MB.",
        "work_mem (integer)\nSets the base maximum amount of memory used by a query "
        "operation. The default value is four megabytes (4MB).",
        "4 MB",
    )
    assert hit is not None and hit[1] == "4 MB"
