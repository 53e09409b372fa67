"""Extractive answering through the graph: the real tenant index in Elasticsearch, scripted
models that pick numbered sentences, every check of the written answer still run."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pipeline.accounting import calls_by_kind
from pipeline.deps import Limits
from tests.fakes.chat import ScriptedChatModel, grade_by_keyword, shown_sources
from tests.integration.graph_helpers import make_deps, route, run_turn, verdict

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"
TORQUE_SENTENCE = (
    "The rotor shaft fastener of the Quillmate frobnicator must be tightened to a torque of "
    "12 newton metres."
)
_NUMBERED = re.compile(r"^\[S(\d+)\] (.*)$", re.MULTILINE)


def pick(keyword: str) -> Any:
    """An extractor script: the number of the first shown sentence holding ``keyword``."""

    def reply(user: str) -> dict[str, list[int]]:
        return {"sentences": [int(n) for n, text in _NUMBERED.findall(user) if keyword in text][:1]}

    return reply


@pytest.fixture
def extractive(es: Any, corpus_tenant: str, redactor: Any, settings: Any) -> Any:
    def build(model: ScriptedChatModel) -> Any:
        limits = Limits(retrieve_k=4, generation="extractive")
        return make_deps(
            es, corpus_tenant, model, redactor, index_prefix=settings.index_prefix, limits=limits
        )

    return build


def scripted(extractor: Any, verifier: Any = None) -> ScriptedChatModel:
    return ScriptedChatModel(
        script={
            "router": lambda _: route("vectorstore"),
            "grader": grade_by_keyword("newton metres"),
            "rewriter": lambda _: {"query": "rotor shaft fastener torque"},
            "extractor": extractor,
            "verifier": verifier or (lambda _: verdict(True)),
        }
    )


def test_the_picked_sentence_is_the_answer_verbatim_and_cites_its_chunk(extractive: Any) -> None:
    model = scripted(pick("newton metres"))
    state = run_turn(extractive(model), TORQUE_Q)

    outcome = state["outcome"]
    assert outcome["status"] == "answered", outcome
    assert outcome["answer"] == TORQUE_SENTENCE.rstrip(".") + " [1]."
    assert state["generation"]["claims"] == [
        {"text": TORQUE_SENTENCE, "source_ids": [outcome["citations"][0]["id"]]}
    ]
    assert outcome["citations"][0]["locator"].endswith("rotor-maintenance.md")
    # One extractor call (accounted as the generator), then the verifier.
    assert calls_by_kind(state["calls"])["generator"] == 1
    assert "generator" not in model.roles_called()
    roles = model.roles_called()
    assert roles.index("extractor") < roles.index("verifier")
    # The verifier reads the sources exactly as the extractor did, numbered sentences and
    # all, so the model server can reuse the extractor's prompt as its prefix.
    extractor_prompt = next(u for r, u in model.calls if r == "extractor")
    verifier_prompt = next(u for r, u in model.calls if r == "verifier")
    shown = dict(shown_sources(extractor_prompt))
    assert dict(shown_sources(verifier_prompt)).items() <= shown.items()
    assert "[S1]" in extractor_prompt and "Claim 1: " + TORQUE_SENTENCE in verifier_prompt


def test_no_sentence_picked_abstains_without_a_verifier_call(extractive: Any) -> None:
    model = scripted(lambda _: {"sentences": []})
    state = run_turn(extractive(model), TORQUE_Q)

    assert state["outcome"]["status"] == "abstained"
    assert state["outcome"]["reason"] == "no_relevant_sources"
    assert "no sentence of the graded sources" in state["outcome"]["detail"]
    assert "verifier" not in model.roles_called()


def test_a_number_that_was_not_shown_is_a_bad_reply_fed_back(extractive: Any) -> None:
    replies = iter([{"sentences": [99]}])

    def extractor(user: str) -> dict[str, list[int]]:
        return next(replies, None) or pick("newton metres")(user)

    model = scripted(extractor)
    state = run_turn(extractive(model), TORQUE_Q)

    assert state["outcome"]["status"] == "answered"
    assert state["generations"] == 2
    retry = [u for r, u in model.calls if r == "extractor"][1]
    assert "Your previous answer was rejected: the reply was not valid JSON" in retry


def test_a_sentence_the_verifier_refuses_is_not_shipped(extractive: Any) -> None:
    model = scripted(pick("newton metres"), verifier=lambda _: verdict(False))
    state = run_turn(extractive(model), TORQUE_Q)

    assert state["outcome"]["status"] == "abstained"
    assert state["outcome"]["reason"] == "ungrounded"
    assert model.roles_called().count("extractor") == 2  # one more attempt, then abstain
    assert state["outcome"]["answer"] == ""
