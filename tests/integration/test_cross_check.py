"""The cross-check search (issue 12): a plant alone in the top k still meets the manual.

One chunk is kept per round (``retrieve_k=1``), and it is the wiki page's planted default;
the manual's chunk that states the true default ranks below it. The scripted models are
gullible (every chunk relevant, the kept source's sentence stated, every claim approved),
so only the search in code stands between the plant and the webhook. Real Elasticsearch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus import index_name
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

QUESTION = "What is the default bgwriter_delay?"
WIKI = (
    "# Background writer notes\n\nOn our clusters the default bgwriter_delay is 50ms. "
    "We never change the bgwriter_delay default.\n"
)
MANUAL = (
    "# Background writer\n\nThere is a separate server process called the background "
    "writer, whose function is to issue writes of dirty shared buffers.\n\n"
    "bgwriter_delay (integer)\n\nSpecifies the delay between activity rounds for the "
    "background writer. In each round the writer issues writes for some number of dirty "
    "buffers. The default is 200 milliseconds (200ms). This parameter can only be set in "
    "the postgresql.conf file or on the server command line.\n"
)


ENUM_WIKI = (
    "# Archiving setup\n\nOut of the box wal_level is minimal, which only keeps what crash "
    "recovery needs, so change it first.\n"
)
ENUM_MANUAL = (
    "# Write-ahead log\n\nwal_level (enum)\n\n`wal_level` determines how much information is "
    "written to the WAL. The default value is `replica`, which writes enough data to support "
    "WAL archiving and replication.\n"
)


@pytest.fixture
def tenant(es: Any, settings: Any, tmp_path: Path) -> Iterator[str]:
    pages = {
        "manual/runtime-config-resource.md": MANUAL,
        "wiki/bgwriter-notes.md": WIKI,
        "manual/runtime-config-wal.md": AGREEING_MANUAL,
        "wiki/checkpoint-notes.md": AGREEING_WIKI,
        "manual/wal.md": ENUM_MANUAL,
        "wiki/archiving-setup.md": ENUM_WIKI,
    }
    with tenant_with_pages(es, "t-xcheck", tmp_path, pages, index_prefix=settings.index_prefix) as (
        name,
        _,
    ):
        yield name


def first_default_sentence(user: str) -> dict[str, Any]:
    """Believe source 1: its first sentence that gives a default, cited."""
    sources = shown_sources(user)
    n, text = sources[0]
    sentence = next(s for s in re.split(r"(?<=\.)\s|\n", text) if "default" in s)
    return answer((sentence.strip(), [n]))


def gullible(on_grade: Any = None) -> ScriptedChatModel:
    return gullible_model(first_default_sentence, rewrite="bgwriter_delay", on_grade=on_grade)


def deps(es: Any, tenant: str, redactor: Any, settings: Any, *, k: int = 8, **kw: Any) -> Any:
    base = make_deps(
        es,
        tenant,
        kw.pop("model", None) or gullible(),
        redactor,
        index_prefix=settings.index_prefix,
        limits=Limits(retrieve_k=1, cross_check_k=k),
    )
    return index_only(base, **kw)


def kept_locators(state: dict[str, Any]) -> list[str]:
    return [Path(g["document"]["locator"]).name for g in state["graded"] if g["relevant"]]


def test_without_the_cross_check_the_plant_alone_in_the_top_k_is_shipped(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    state = run_turn(deps(es, tenant, redactor, settings, k=0), QUESTION)

    assert kept_locators(state) == ["bgwriter-notes.md"]  # the premise: the plant ranks first
    assert state["outcome"]["status"] == "answered"
    assert "50ms" in state["outcome"]["answer"]
    assert state["cross_check"] is None


def test_the_cross_check_finds_the_manual_and_the_turn_abstains_naming_both(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    state = run_turn(deps(es, tenant, redactor, settings), QUESTION)

    outcome = state["outcome"]
    assert kept_locators(state) == ["bgwriter-notes.md"]
    assert outcome["status"] == "abstained" and outcome["reason"] == "conflicting_sources"
    assert "50ms" in outcome["detail"] and "200 milliseconds" in outcome["detail"]
    assert "runtime-config-resource.md" in outcome["detail"]
    assert "cross-check search 'bgwriter_delay default'" in outcome["detail"]
    assert [Path(d["locator"]).name for d in state["cross_check"]["documents"]] == [
        "runtime-config-resource.md"
    ]
    assert "verify" not in state["trace"]


def test_with_the_manual_trusted_its_found_chunk_answers_and_is_cited(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    trust = SourceTrust.parse(["*/manual/*=3", "*/wiki/*=1"])
    state = run_turn(deps(es, tenant, redactor, settings, trust=trust), QUESTION)

    outcome = state["outcome"]
    assert outcome["status"] == "answered", outcome["detail"]
    assert "200ms" in outcome["answer"] and "50ms" not in outcome["answer"]
    assert [Path(c["locator"]).name for c in outcome["citations"]] == ["runtime-config-resource.md"]
    assert "the more trusted source wins (200 milliseconds)" in outcome["detail"]
    assert state["conflict"]["settled"] == "trust"


def test_sources_the_search_finds_in_agreement_change_nothing(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    state = run_turn(
        deps(es, tenant, redactor, settings), "What is the default checkpoint_timeout?"
    )

    outcome = state["outcome"]
    assert outcome["status"] == "answered", outcome["detail"]
    assert "5min" in outcome["answer"]
    checked = state["cross_check"]
    assert (checked["query"], checked["documents"], checked["error"]) == (
        "checkpoint_timeout default",
        [],
        None,
    )
    assert state["conflict"] is None


def test_a_default_written_as_a_word_meets_its_rival(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    state = run_turn(deps(es, tenant, redactor, settings), "What is the default wal_level?")

    outcome = state["outcome"]
    assert outcome["reason"] == "conflicting_sources", outcome
    assert "minimal" in outcome["detail"] and "replica" in outcome["detail"]
    assert state["cross_check"]["query"] == "wal_level default"


def test_a_failed_cross_check_search_is_named_in_the_outcome(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    index = index_name(tenant, settings.index_prefix)
    model = gullible(on_grade=lambda: es.indices.close(index=index))  # a real outage, mid-turn
    try:
        state = run_turn(deps(es, tenant, redactor, settings, model=model), QUESTION)
    finally:
        es.indices.open(index=index)

    outcome = state["outcome"]
    assert state["cross_check"]["error"]
    assert "the cross-check search for another source failed" in outcome["detail"]
    # Not silent, and no worse than before the check: the kept source's answer goes on.
    assert outcome["status"] == "answered" and "50ms" in outcome["answer"]


def test_a_later_round_that_keeps_only_the_plant_is_searched_again(
    tenant: str, es: Any, redactor: Any, settings: Any
) -> None:
    from pipeline.corroboration import cross_check

    d = deps(es, tenant, redactor, settings)
    [manual] = [x for x in d.retriever.search(QUESTION, 8) if "200ms" in x["text"]]
    [plant] = [x for x in d.retriever.search(QUESTION, 8) if "50ms" in x["text"]]
    # An earlier round searched the same query and found no conflict with what it kept.
    earlier = {"query": "bgwriter_delay default", "documents": [], "error": None}
    later = {"question": QUESTION, "standalone": None, "distrusted": [], "cross_check": earlier}
    update, conflict = cross_check(later, d, [plant])  # this round keeps the plant alone

    assert conflict is not None and conflict.aspect == "default"
    assert [x["id"] for x in update["cross_check"]["documents"]] == [manual["id"]]
