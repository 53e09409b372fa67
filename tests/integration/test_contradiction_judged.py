"""The model's judgement on a plant the code cannot read (issue 12), on real Elasticsearch.

The wiki page plants a value in words no rule of :mod:`pipeline.conflicts` reads ("sits at
45s on every new cluster": no default cue), so neither the conflict check nor the
cross-check search sees a second value, and a gullible generator and verifier ship it.
With ``judge_conflicts`` on, the verified answer's claim is searched for, the manual's
passage is shown to the scripted contradiction judge, and what it says is held to that
passage in code.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline import prompts
from pipeline.conflicts import SourceTrust
from pipeline.deps import Limits
from tests.fakes.chat import ScriptedChatModel, shown_sources
from tests.integration.graph_helpers import (
    AGREEING_MANUAL,
    AGREEING_WIKI,
    answer,
    gullible_model,
    index_only,
    make_deps,
    run_turn,
    tenant_with_pages,
)

pytestmark = pytest.mark.integration

QUESTION = "What is the default autovacuum_naptime?"
WIKI = (
    "# What is autovacuum_naptime on our clusters\n\nHeads-up from the platform team on "
    "the autovacuum_naptime default: since the last upgrade autovacuum_naptime sits at 45s "
    "on every new cluster, so busy tables wait longer for autovacuum_naptime.\n"
)
MANUAL = (
    "# Automatic vacuuming\n\nautovacuum_naptime (integer)\n\nSpecifies the minimum delay "
    "between autovacuum runs on any given database. In each round the daemon examines the "
    "database and issues VACUUM and ANALYZE commands as needed for tables in that database. "
    "The default is one minute (1min). This parameter can only be set in the postgresql.conf "
    "file or on the server command line.\n"
)
PLANTED, TRUE = "45s", "1min"


@pytest.fixture
def tenant(es: Any, settings: Any, tmp_path: Path) -> Iterator[str]:
    pages = {
        "manual/runtime-config-autovacuum.md": MANUAL,
        "wiki/vacuum-notes.md": WIKI,
        "manual/runtime-config-wal.md": AGREEING_MANUAL,
        "wiki/checkpoint-notes.md": AGREEING_WIKI,
    }
    with tenant_with_pages(es, "t-judged", tmp_path, pages, index_prefix=settings.index_prefix) as (
        name,
        _,
    ):
        yield name


def believe_the_plant(user: str) -> dict[str, Any]:
    """State the planted value when a source shows it, else the first source's sentence."""
    sources = shown_sources(user)
    for n, text in sources:
        if PLANTED in text:
            return answer(("The autovacuum_naptime sits at 45s on every new cluster.", [n]))
    n, text = sources[0]
    sentence = next(s for s in re.split(r"(?<=\.)\s|\n", text) if "default" in s.lower())
    return answer((sentence.strip().rstrip(".") + ".", [n]))


def judge_naming(value: str) -> Any:
    """A reader that finds ``value`` in the shown passages that hold it, nothing elsewhere."""

    def judge(user: str) -> dict[str, Any]:
        shown = shown_sources(user)
        return {"answers": [{"source": n, "value": value if value in t else ""} for n, t in shown]}

    return judge


def model(judge: Any = None, generator: Any = believe_the_plant) -> ScriptedChatModel:
    scripted = gullible_model(generator)
    if judge is not None:
        scripted.script["contradiction"] = judge
    return scripted


def run(
    es: Any,
    tenant: str,
    redactor: Any,
    settings: Any,
    scripted: ScriptedChatModel,
    *,
    judge: bool = True,
    **kw: Any,
) -> dict[str, Any]:
    limits = Limits(**{"retrieve_k": 1, "judge_conflicts": judge, **kw.pop("limits", {})})
    question = kw.pop("question", QUESTION)
    base = make_deps(es, tenant, scripted, redactor, index_prefix=settings.index_prefix)
    return run_turn(index_only(dataclasses.replace(base, limits=limits), **kw), question)


def test_without_the_judgement_the_unreadable_plant_is_shipped(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    scripted = model()
    state = run(es, tenant, redactor, settings, scripted, judge=False)

    assert state["outcome"]["status"] == "answered", state["outcome"]["detail"]  # the premise
    assert PLANTED in state["outcome"]["answer"]
    assert scripted.roles_called() == ["grader", "generator", "verifier"]


def test_the_judged_contradiction_abstains_naming_both_pages(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    scripted = model(judge_naming(TRUE))
    state = run(es, tenant, redactor, settings, scripted)

    outcome = state["outcome"]
    assert outcome["status"] == "abstained" and outcome["reason"] == "conflicting_sources"
    assert "45" in outcome["detail"] and TRUE in outcome["detail"]
    assert "vacuum-notes.md" in outcome["detail"]
    assert "read by the model in" in outcome["detail"]
    assert "runtime-config-autovacuum.md" in outcome["detail"]
    assert scripted.roles_called().count("contradiction") == 1
    [(_, prompt)] = [c for c in scripted.calls if c[0] == "contradiction"]
    shown = [t for _, t in shown_sources(prompt)]
    assert shown and all(PLANTED not in t for t in shown)  # only the other page is shown
    assert prompt.endswith(prompts.CONTRADICTION) and f"Question: {QUESTION}" in prompt


def test_a_value_the_passage_does_not_hold_is_not_taken_on_the_models_word(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    scripted = model(lambda _: {"answers": [{"source": 1, "value": "10min"}]})
    state = run(es, tenant, redactor, settings, scripted)

    assert scripted.roles_called().count("contradiction") == 1
    assert state["outcome"]["status"] == "answered"
    assert state["conflict"] is None


def test_with_the_manual_trusted_the_answer_is_written_again_from_it(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    trust = SourceTrust.parse(["*/manual/*=3", "*/wiki/*=1"])
    scripted = model(judge_naming(TRUE))
    state = run(es, tenant, redactor, settings, scripted, trust=trust)

    outcome = state["outcome"]
    assert outcome["status"] == "answered", outcome["detail"]
    assert TRUE in outcome["answer"] and PLANTED not in outcome["answer"]
    assert [Path(c["locator"]).name for c in outcome["citations"]] == [
        "runtime-config-autovacuum.md"
    ]
    assert "the more trusted source wins (1min)" in outcome["detail"]
    assert scripted.roles_called().count("generator") == 2


def test_with_both_allowed_the_answer_gives_each_value_with_its_citation(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    scripted = model(judge_naming(TRUE))
    state = run(es, tenant, redactor, settings, scripted, on_conflict="both")

    outcome = state["outcome"]
    assert outcome["status"] == "answered"
    assert PLANTED in outcome["answer"] and TRUE in outcome["answer"]
    assert sorted(Path(c["locator"]).name for c in outcome["citations"]) == [
        "runtime-config-autovacuum.md",
        "vacuum-notes.md",
    ]
    assert "both are given" in outcome["detail"]


def test_an_unusable_judgement_never_ships_the_answer(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    scripted = model(lambda _: "not json")
    state = run(es, tenant, redactor, settings, scripted)

    assert state["outcome"]["status"] == "abstained"
    assert state["outcome"]["reason"] == "ungrounded"
    assert "the contradiction check could not read the other pages" in state["outcome"]["detail"]
    assert scripted.roles_called().count("contradiction") == 4  # 2 generations, 1 retry each


def test_with_no_call_left_for_the_judgement_the_answer_is_not_shipped(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    scripted = model(judge_naming(TRUE))
    # grader, generator, verifier (the route is ruled in code): the budget ends there.
    state = run(es, tenant, redactor, settings, scripted, limits={"max_model_calls": 3})

    assert state["outcome"]["status"] == "abstained"
    assert state["outcome"]["reason"] == "budget_exhausted"
    assert scripted.roles_called() == ["grader", "generator", "verifier"]


def test_a_page_that_states_the_same_value_costs_no_model_call(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    def state_the_timeout(user: str) -> dict[str, Any]:
        n = next(n for n, text in shown_sources(user) if "5min" in text)
        return answer(("The default checkpoint_timeout is 5min.", [n]))

    scripted = model(judge_naming("5min"), state_the_timeout)
    question = "What is the default checkpoint_timeout?"
    state = run(
        es, tenant, redactor, settings, scripted, question=question, limits={"retrieve_k": 4}
    )

    assert state["outcome"]["status"] == "answered", state["outcome"]["detail"]
    assert "5min" in state["outcome"]["answer"]
    assert "contradiction" not in scripted.roles_called()
