"""The graph end to end with scripted models, the real tenant index in Elasticsearch, the
real Presidio redactor and the local web-search stand-in: exact node path, counters and
outcome for each way a turn can go."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import httpx
import openai
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.runtime import Runtime

from pipeline.accounting import calls_by_kind
from pipeline.answering import verify
from pipeline.deps import Limits
from pipeline.sources import relevant_documents
from pipeline.standing import spent
from tests.fakes.chat import ScriptedChatModel, echo_condenser, grade_by_keyword
from tests.fakes.web_provider import web_result
from tests.integration.graph_helpers import (
    ONE_REWRITE_TRACE,
    answer,
    make_deps,
    route,
    run_turn,
    torque_model,
    verdict,
)

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"
TORQUE_ANSWER = answer(("The rotor shaft fastener needs 12 newton metres.", [1]))


@pytest.fixture
def deps_for(es: Any, corpus_tenant: str, redactor: Any, settings: Any):
    def build(model: ScriptedChatModel, **kw: Any) -> Any:
        return make_deps(
            es, corpus_tenant, model, redactor, index_prefix=settings.index_prefix, **kw
        )

    return build


class TestHappyPath:
    def test_answer_cites_the_graded_chunk(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)

        assert state["trace"] == [
            "begin_turn",
            "route_question",
            "retrieve",
            "assess_grades",
            "generate",
            "verify",
            "finalize",
        ]
        outcome = state["outcome"]
        assert outcome["status"] == "answered"
        assert [c["n"] for c in outcome["citations"]] == [1]
        assert outcome["citations"][0]["locator"].endswith("rotor-maintenance.md")
        assert outcome["citations"][0]["source_type"] == "index"
        graded = len(state["documents"])
        assert graded >= 1
        assert (state["rewrites"], state["generations"]) == (0, 1)
        # Web search is off, so the rules route without a router call: k graders, generator,
        # verifier (with web on the router is asked too: TestRoutingRules).
        assert spent(state) == graded + 2
        assert calls_by_kind(state["calls"]) == {
            "grader": graded,
            "generator": 1,
            "verifier": 1,
        }
        assert model.roles_called().count("grader") == graded


class TestRewrite:
    def test_rewrite_then_success_resets_stale_grades(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "rewriter": [{"query": "rotor shaft fastener torque"}],
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model), "How tight should the spindle bolt be?")

        assert state["trace"] == ONE_REWRITE_TRACE
        assert state["queries_tried"] == [
            "How tight should the spindle bolt be?",
            "rotor shaft fastener torque",
        ]
        assert state["rewrites"] == 1
        # Only verdicts of the second round remain: the first round's were reset.
        assert {g["round"] for g in state["graded"]} == {1}
        assert len(state["graded"]) == len(state["documents"])
        assert state["outcome"]["status"] == "answered"

    def test_rewrites_exhausted_then_web(self, deps_for: Any, web_provider: Any) -> None:
        web_provider.set_results(
            [
                web_result(
                    "https://quillmate.example/pricing",
                    "Quillmate pricing",
                    "The Quillmate Pro costs 99 euros per seat per month.",
                )
            ]
        )
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("99 euros"),
                "rewriter": [{"query": "Quillmate Pro cost"}, {"query": "Pro plan monthly fee"}],
                "generator": [
                    answer(
                        ("The Pro plan costs 99 euros per seat per month.", [1]),
                    )
                ],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(
            deps_for(model, web_url=web_provider.url), "What is the price of the Quillmate Pro?"
        )

        assert state["trace"] == [
            "begin_turn",
            "route_question",
            "retrieve",
            "assess_grades",
            "rewrite_query",
            "retrieve",
            "assess_grades",
            "rewrite_query",
            "retrieve",
            "assess_grades",
            "redact_query",
            "web_search",
            "assess_grades",
            "generate",
            "verify",
            "finalize",
        ]
        assert state["rewrites"] == 2 and state["web_used"] is True
        [cited] = state["outcome"]["citations"]
        assert cited["source_type"] == "web"
        assert cited["locator"] == "https://quillmate.example/pricing"
        assert [r["query"] for r in web_provider.requests] == ["Pro plan monthly fee"]

    def test_duplicate_rewrite_skips_a_round(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("nothing matches"),
                "rewriter": [{"query": "how TIGHT should the spindle bolt be"}],
            }
        )
        state = run_turn(deps_for(model), "How tight should the spindle bolt be?")

        assert state["trace"] == [
            "begin_turn",
            "route_question",
            "retrieve",
            "assess_grades",
            "rewrite_query",
            "abstain",
        ]
        assert state["outcome"]["reason"] == "no_relevant_sources"


class TestVerification:
    def test_grounding_failure_then_abstention(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER, TORQUE_ANSWER],
                "verifier": [verdict(False), verdict(False)],
            }
        )
        state = run_turn(deps_for(model, limits=Limits(max_generations=2)), TORQUE_Q)

        assert state["trace"] == [
            "begin_turn",
            "route_question",
            "retrieve",
            "assess_grades",
            "generate",
            "verify",
            "generate",
            "verify",
            "abstain",
        ]
        assert state["generations"] == 2
        outcome = state["outcome"]
        assert outcome["status"] == "abstained" and outcome["reason"] == "ungrounded"
        assert outcome["citations"] == [] and outcome["answer"] == ""
        # The retry told the generator which claim failed.
        second = [u for r, u in model.calls if r == "generator"][1]
        assert "unsupported claims: The rotor shaft fastener needs 12 newton metres." in second

    def test_the_verifier_reads_only_the_passage_each_claim_rests_on(self, deps_for: Any) -> None:
        model = torque_model()
        state = run_turn(deps_for(model), TORQUE_Q)

        assert state["outcome"]["status"] == "answered"
        generator_prompt = next(u for r, u in model.calls if r == "generator")
        verifier_prompt = next(u for r, u in model.calls if r == "verifier")
        # The chunk as the generator saw it held the re-check advice too; the verifier sees
        # the claim with the one sentence it rests on (pipeline/evidence.py).
        assert "re-check the fastener" in generator_prompt
        claim, passage = verifier_prompt.split("\n", 1)
        assert claim == "Claim 1: The rotor shaft fastener needs 12 newton metres. (cites [1])"
        assert passage.startswith('<source n="1" title="Rotor shaft maintenance">\n')
        assert "tightened to a torque of 12 newton metres." in passage
        assert "re-check the fastener" not in verifier_prompt

    def test_a_claim_with_no_passage_shown_fails_without_the_verifier(self, deps_for: Any) -> None:
        # A state no generator writes (a forked checkpoint can): the claim cites a graded
        # chunk that is not among the sources of the generation.
        model = torque_model()
        deps = deps_for(model)
        state = run_turn(deps, TORQUE_Q)
        [kept] = [d["id"] for d in relevant_documents(state)][:1]
        forked = {
            **state,
            "generation": {
                "answer": "The rotor shaft fastener needs 12 newton metres [1].",
                "claims": [{"text": "12 newton metres.", "source_ids": [kept]}],
                "sources": ["some-other-chunk"],
            },
        }
        update = verify(forked, Runtime(context=deps))

        assert update["grounded"] is False
        assert update["feedback"] == "claim 1 cites no source it was shown"
        assert model.roles_called().count("verifier") == 1  # only the turn's own call

    def test_fabricated_citation_fails_in_code_without_verifier(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [
                    answer(("12 newton metres.", [7])),
                    TORQUE_ANSWER,
                ],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)

        assert state["trace"][-5:] == ["generate", "verify", "generate", "verify", "finalize"]
        assert model.roles_called().count("verifier") == 1
        assert state["outcome"]["status"] == "answered"

    def test_off_target_answer_rewrites(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER, TORQUE_ANSWER],
                "verifier": [verdict(True, resolves=False), verdict(True)],
                "rewriter": [{"query": "rotor fastener tightening torque value"}],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)

        assert state["trace"][4:] == [
            "generate",
            "verify",
            "rewrite_query",
            "retrieve",
            "assess_grades",
            "generate",
            "verify",
            "finalize",
        ]
        assert (state["rewrites"], state["generations"]) == (1, 2)

    def test_a_quantity_question_answered_without_a_figure_is_off_target(
        self, deps_for: Any
    ) -> None:
        vague = answer(("The rotor shaft fastener must be tightened with a torque wrench.", [1]))
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [vague, vague],
                "verifier": [verdict(True), verdict(True)],  # a verifier that accepts it
                "rewriter": [{"query": "rotor fastener tightening torque value"}],
            }
        )
        deps = deps_for(model, limits=Limits(max_rewrites=1))
        state = run_turn(deps, "How much torque does the rotor shaft fastener need?")

        assert state["trace"][-4:] == ["assess_grades", "generate", "verify", "abstain"]
        assert "rewrite_query" in state["trace"]
        assert state["outcome"]["reason"] == "off_target"
        assert "asks for a quantity and no claim states one" in state["outcome"]["detail"]


class TestRoutingRules:
    def test_with_web_off_the_rules_route_without_asking_the_router(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("web_search")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
                "direct": [{"answer": "Hello!"}],
                "direct_check": [{"states_facts": False}],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        assert state["route"] == "vectorstore"
        assert state["route_reason"].startswith("web search is off")
        hello = run_turn(deps_for(model), "Hello there")
        assert hello["route"] == "direct" and hello["outcome"]["status"] == "answered"
        assert "router" not in model.roles_called()

    def test_with_web_on_the_router_is_asked_and_its_web_route_kept(
        self, deps_for: Any, web_provider: Any
    ) -> None:
        web_provider.set_results([])
        model = ScriptedChatModel(script={"router": [route("web_search")]})
        question = "What changed in release 16.2 of the server?"
        state = run_turn(deps_for(model, web_url=web_provider.url), question)
        assert model.roles_called()[0] == "router"
        assert state["route"] == "web_search" and state["route_reason"] == "scripted"
        assert [r["query"] for r in web_provider.requests] == [state["web_query"]]
        assert "16.2" in state["web_query"]
        assert spent(state) == 1 and state["outcome"]["reason"] == "no_relevant_sources"

    def test_invalid_router_reply_defaults_to_index(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": ["I think the web"],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        assert state["route"] == "vectorstore"
        assert state["outcome"]["status"] == "answered"

    def test_empty_index_never_routes_to_it(self, es: Any, redactor: Any) -> None:
        model = ScriptedChatModel(script={"router": [route("vectorstore")]})
        deps = make_deps(es, "t-no-such-index", model, redactor)
        state = run_turn(deps, TORQUE_Q)
        assert state["route"] == "none"
        assert state["trace"] == ["begin_turn", "route_question", "abstain"]
        assert state["outcome"]["reason"] == "no_relevant_sources"

    def test_direct_reply_states_no_facts(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("direct")],
                "direct": [{"answer": "Hello! Ask me about your documents."}],
                "direct_check": [{"states_facts": False}],
            }
        )
        state = run_turn(deps_for(model), "Hello there")
        assert state["trace"] == ["begin_turn", "route_question", "generate", "verify", "finalize"]
        assert state["outcome"]["citations"] == []
        assert state["outcome"]["answer"] == "Hello! Ask me about your documents."

    def test_direct_reply_that_states_facts_is_not_shipped(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("direct")],
                "direct": [{"answer": "Hi! Argentina won."}, {"answer": "Hello! France won."}],
                "direct_check": [{"states_facts": True}, {"states_facts": True}],
            }
        )
        state = run_turn(deps_for(model), "Hello!")
        assert state["trace"] == [
            "begin_turn",
            "route_question",
            "generate",
            "verify",
            "generate",
            "verify",
            "abstain",
        ]
        assert state["outcome"]["reason"] == "ungrounded"
        assert state["outcome"]["answer"] == ""

    def test_direct_is_only_for_small_talk(self, deps_for: Any, web_provider: Any) -> None:
        web_provider.set_results([])
        model = ScriptedChatModel(
            script={
                "router": [route("direct")],
                "grader": grade_by_keyword("never matches"),
                "rewriter": [
                    {"query": "football world cup winner"},
                    {"query": "tournament champion"},
                ],
            }
        )
        deps = deps_for(model, web_url=web_provider.url)  # web on: the router is asked
        state = run_turn(deps, "Who won the 2022 World Cup final?")
        assert state["route"] == "vectorstore"
        assert state["route_reason"] == "the direct route is only for small talk"
        assert state["outcome"]["reason"] == "no_relevant_sources"

    def test_recent_events_go_to_the_web(self, deps_for: Any, web_provider: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("never matches"),
            }
        )
        state = run_turn(
            deps_for(model, web_url=web_provider.url),
            "Which PostgreSQL release was announced this week?",
        )
        assert state["route"] == "web_search"
        assert state["trace"][:4] == ["begin_turn", "route_question", "redact_query", "web_search"]


class TestHandledFailures:
    def test_index_down_is_a_handled_state(self, es: Any, redactor: Any) -> None:
        from elasticsearch import Elasticsearch

        dead = Elasticsearch("http://127.0.0.1:9", request_timeout=1, max_retries=0)
        model = ScriptedChatModel(script={"router": [route("vectorstore")]})
        state = run_turn(make_deps(dead, "t-down", model, redactor), TORQUE_Q)
        assert state["outcome"]["status"] == "abstained"
        assert state["outcome"]["reason"] == "retrieval_unavailable"
        assert "t-down" in state["outcome"]["detail"]

    @pytest.mark.parametrize("how", ["closed", "stopped"])
    def test_an_index_failure_with_web_on_never_leaves_for_the_web(
        self, es: Any, settings: Any, redactor: Any, web_provider: Any, tmp_path: Any, how: str
    ) -> None:
        from elasticsearch import Elasticsearch

        from corpus import index_name, ingest_paths

        tenant = f"t-closed-{uuid.uuid4().hex[:8]}"
        (tmp_path / "a.md").write_text("# Torque\n\nThe rotor shaft fastener needs 12 N·m.")
        ingest_paths(es, tenant, [tmp_path], index_prefix=settings.index_prefix)
        name = index_name(tenant, settings.index_prefix)
        client = es
        if how == "closed":
            es.indices.close(index=name)
        else:  # nothing listens on port 9: Elasticsearch is down
            client = Elasticsearch("http://127.0.0.1:9", request_timeout=1, max_retries=0)
        web_provider.set_results([web_result("https://x.example/", "x", "12 N·m, says a blog")])
        model = ScriptedChatModel(script={"router": [route("vectorstore")]})
        try:
            deps = make_deps(client, tenant, model, redactor, web_url=web_provider.url,
                             index_prefix=settings.index_prefix)  # fmt: skip
            state = run_turn(deps, TORQUE_Q)
        finally:
            es.indices.delete(index=name, ignore_unavailable=True)
        assert web_provider.requests == []
        assert state["trace"] == ["begin_turn", "route_question", "abstain"]
        assert state["outcome"]["reason"] == "retrieval_unavailable"
        if how == "closed":
            assert "index_closed_exception" in state["outcome"]["detail"]
        assert tenant in state["outcome"]["detail"]

    def test_a_search_failure_after_routing_abstains_without_the_web(
        self, es: Any, corpus_tenant: str, settings: Any, redactor: Any, web_provider: Any
    ) -> None:
        from corpus import TenantRetriever

        class BrokenEmbeddings(DeterministicFakeEmbedding):
            def embed_query(self, text: str) -> list[float]:
                raise RuntimeError("embedding server refused")

        model = ScriptedChatModel(script={"router": [route("vectorstore")]})
        deps = make_deps(es, corpus_tenant, model, redactor, web_url=web_provider.url,
                         index_prefix=settings.index_prefix)  # fmt: skip
        # The index counts fine (routing keeps the question here), then the search fails.
        deps = dataclasses.replace(deps, retriever=TenantRetriever(
            es, corpus_tenant, index_prefix=settings.index_prefix,
            embeddings=BrokenEmbeddings(size=8),
        ))  # fmt: skip
        state = run_turn(deps, TORQUE_Q)
        assert web_provider.requests == []
        assert state["trace"] == [
            "begin_turn", "route_question", "retrieve", "assess_grades", "abstain"
        ]  # fmt: skip
        assert state["outcome"]["reason"] == "retrieval_unavailable"
        assert "embedding server refused" in state["outcome"]["detail"]

    @pytest.mark.parametrize("prose", ["Yes, this chunk looks relevant to me.", {"score": 0.9}])
    def test_unusable_grader_replies_abstain_as_such_and_never_reach_the_web(
        self, deps_for: Any, web_provider: Any, prose: Any
    ) -> None:
        model = ScriptedChatModel(
            script={"router": [route("vectorstore")], "grader": lambda _: prose}
        )
        state = run_turn(deps_for(model, web_url=web_provider.url), TORQUE_Q)
        assert web_provider.requests == []
        assert state["trace"][-2:] == ["assess_grades", "abstain"]
        assert state["outcome"]["reason"] == "model_unusable"
        graded = len(state["graded"])
        assert f"{graded} of {graded} grader replies unusable" in state["outcome"]["detail"]
        # Each chunk's grader was asked twice (the reply is asked for once more).
        assert calls_by_kind(state["calls"])["grader"] == 2 * graded

    def test_an_unusable_rewrite_abstains_instead_of_going_to_the_web(
        self, deps_for: Any, web_provider: Any
    ) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("never matches"),
                "rewriter": ["Sure! A better query would be: rotor torque"],
            }
        )
        state = run_turn(deps_for(model, web_url=web_provider.url), TORQUE_Q)
        assert web_provider.requests == []
        assert state["trace"][-2:] == ["rewrite_query", "abstain"]
        assert state["outcome"]["reason"] == "model_unusable"
        assert "invalid rewriter reply" in state["outcome"]["detail"]

    def test_model_outage_abstains_with_reason(self, deps_for: Any) -> None:
        outage = openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:1"))
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": lambda _: outage,
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        assert state["trace"][-2:] == ["assess_grades", "abstain"]
        assert state["outcome"]["reason"] == "model_unavailable"

    def test_web_search_failure_abstains(self, deps_for: Any, web_provider: Any) -> None:
        web_provider.fail_with(500)
        model = ScriptedChatModel(script={"router": [route("web_search")]})
        state = run_turn(deps_for(model, web_url=web_provider.url), "latest release news?")
        assert state["trace"] == [
            "begin_turn",
            "route_question",
            "redact_query",
            "web_search",
            "assess_grades",
            "abstain",
        ]
        assert "500" in state["outcome"]["detail"]


class TestRedactionBeforeEgress:
    def test_provider_never_sees_personal_data(self, deps_for: Any, web_provider: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("web_search")],
                "grader": grade_by_keyword("never"),
            }
        )
        question = (
            "I am Maria Gonzalez, maria.gonzalez@example.com, phone +1 415-555-0132. "
            "What is the latest PostgreSQL release?"
        )
        state = run_turn(deps_for(model, web_url=web_provider.url), question)

        [sent] = [r["query"] for r in web_provider.requests]
        for secret in ("Maria", "Gonzalez", "maria.gonzalez@example.com", "415-555-0132"):
            assert secret not in sent
        assert "PostgreSQL" in sent and state["web_query"] == sent


class TestConversation:
    def test_three_turns_with_a_follow_up_that_needs_history(self, deps_for: Any) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        from pipeline.graph import build_graph

        def condenser(user: str) -> dict[str, str]:
            # Only resolvable with the history: "its bearings" are the rotor's.
            assert "rotor shaft fastener" in user, "the condenser did not see turn 1"
            message = user.rsplit("Latest message: ", 1)[-1].strip()
            if message.startswith("And how often"):
                return {"question": "How often should the rotor bearings be lubricated?"}
            return {"question": message}

        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore"), route("vectorstore"), route("direct")],
                "grader": grade_by_keyword("200 hours", "newton metres"),
                "condenser": condenser,
                "generator": [
                    TORQUE_ANSWER,
                    answer(
                        ("Lubricate the rotor bearings every 200 hours.", [1]),
                    ),
                ],
                "verifier": [verdict(True), verdict(True)],
                "direct": [{"answer": "You are welcome!"}],
                "direct_check": [{"states_facts": False}],
            }
        )
        graph = build_graph(InMemorySaver())
        first = run_turn(deps_for(model), TORQUE_Q, graph=graph, thread_id="th-1")
        second = run_turn(
            deps_for(model),
            "And how often should its bearings be greased?",
            graph=graph,
            thread_id="th-1",
        )
        third = run_turn(deps_for(model), "Thanks!", graph=graph, thread_id="th-1")

        assert first["trace"][:2] == ["begin_turn", "route_question"]  # no history yet
        assert second["trace"][:3] == ["begin_turn", "condense_question", "route_question"]
        assert second["standalone"] == "How often should the rotor bearings be lubricated?"
        assert second["queries_tried"][0] == second["standalone"]
        assert second["outcome"]["status"] == "answered"
        assert second["outcome"]["citations"][0]["locator"].endswith("rotor-maintenance.md")
        # The graders judged against the standalone question, not the bare follow-up.
        grader_prompts = [u for r, u in model.calls if r == "grader"]
        assert any("rotor bearings be lubricated" in u for u in grader_prompts)
        assert third["outcome"]["status"] == "answered" and third["route"] == "direct"
        assert [t["question"] for t in third["history"]] == [
            TORQUE_Q,
            "And how often should its bearings be greased?",
            "Thanks!",
        ]
        # Counters are per turn.
        assert (third["rewrites"], third["generations"]) == (0, 1)
        assert calls_by_kind(third["calls"]) == {
            "condenser": 1,
            "generator": 1,
            "direct_check": 1,
        }

    def test_a_question_answered_earlier_is_answered_from_history(self, deps_for: Any) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        from pipeline.graph import build_graph

        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
                "condenser": echo_condenser,
            }
        )
        graph = build_graph(InMemorySaver())
        first = run_turn(deps_for(model), TORQUE_Q, graph=graph, thread_id="th-2")
        again = run_turn(deps_for(model), TORQUE_Q.upper(), graph=graph, thread_id="th-2")

        # Repeated word for word (any case): no condenser, no model call at all.
        assert again["trace"] == ["begin_turn", "route_question", "recall_answer"]
        assert again["route"] == "history"
        assert again["outcome"]["citations"] == first["outcome"]["citations"]
        assert again["outcome"]["answer"] == first["outcome"]["answer"]
        assert calls_by_kind(again["calls"]) == {}

    def test_a_condensation_that_drops_the_message_is_not_used(self, deps_for: Any) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        from pipeline.graph import build_graph

        model = ScriptedChatModel(
            script={
                "router": lambda _: route("vectorstore"),
                "grader": grade_by_keyword("newton metres"),
                "generator": lambda _: TORQUE_ANSWER,
                "verifier": lambda _: verdict(True),
                "rewriter": lambda _: {"query": "widget reset steps"},
                # A small model returning an earlier question with its history markup:
                "condenser": lambda _: {"question": "How do I reset the widget? (response:"},
            }
        )
        graph = build_graph(InMemorySaver())
        run_turn(deps_for(model), "How do I reset the widget?", graph=graph, thread_id="th-3")
        follow = run_turn(deps_for(model), TORQUE_Q, graph=graph, thread_id="th-3")

        assert follow["standalone"] == TORQUE_Q  # the user's own question is what is asked
        assert follow["queries_tried"][0] == TORQUE_Q


class TestConfidenceTiers:
    def test_ambiguous_round_keeps_index_chunks_and_adds_the_web(
        self, deps_for: Any, web_provider: Any
    ) -> None:
        web_provider.set_results(
            [
                web_result(
                    "https://quillmate.example/torque",
                    "Torque table",
                    "Quillmate torque table: the rotor shaft fastener takes 12 newton metres.",
                )
            ]
        )

        def grader(user: str) -> dict[str, Any]:
            source = user.split("<source", 1)[1]
            score = 0.9 if "Torque table" in source else 0.5 if "newton metres" in source else 0.0
            return {"score": score, "reason": "scripted"}

        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grader,
                "generator": [
                    answer(
                        ("The rotor shaft fastener needs 12 newton metres.", [1, 2]),
                    )
                ],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model, web_url=web_provider.url), TORQUE_Q)

        assert state["trace"] == [
            "begin_turn",
            "route_question",
            "retrieve",
            "assess_grades",
            "redact_query",
            "web_search",
            "assess_grades",
            "generate",
            "verify",
            "finalize",
        ]
        cited = state["outcome"]["citations"]
        assert [c["source_type"] for c in cited] == ["index", "web"]
        assert cited[0]["locator"].endswith("rotor-maintenance.md")
        assert state["rewrites"] == 0  # an ambiguous round goes to the web, not to a rewrite

    def test_incorrect_round_discards_index_chunks(self, deps_for: Any, web_provider: Any) -> None:
        web_provider.set_results(
            [
                web_result(
                    "https://quillmate.example/price",
                    "Pricing",
                    "The Quillmate Pro costs 99 euros.",
                )
            ]
        )
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("99 euros"),
                "rewriter": [{"query": "Quillmate Pro cost"}, {"query": "Pro plan monthly fee"}],
                "generator": [answer(("The Quillmate Pro costs 99 euros.", [1]))],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(
            deps_for(model, web_url=web_provider.url), "What is the price of the Quillmate Pro?"
        )
        assert state["kept"] == []
        assert [c["source_type"] for c in state["outcome"]["citations"]] == ["web"]

    def test_generator_sees_refined_sources(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
            }
        )
        state = run_turn(deps_for(model), TORQUE_Q)
        [prompt] = [user for role, user in model.calls if role == "generator"]
        assert "12 newton metres" in prompt
        assert "Lubricate the rotor bearings" not in prompt  # off-topic sentence refined away
        # The stored chunk is unchanged: refinement only shapes the prompt.
        [kept] = [g for g in state["graded"] if g["relevant"]]
        assert "Lubricate the rotor bearings" in kept["document"]["text"]


class TestModelFallbacks:
    def test_unreachable_model_falls_back_and_records_the_hops(
        self, es: Any, corpus_tenant: str, redactor: Any, settings: Any
    ) -> None:
        from langchain_openai import ChatOpenAI

        from pipeline.deps import Models

        down = ChatOpenAI(
            base_url="http://127.0.0.1:9/v1", model="primary", api_key="x", max_retries=0, timeout=2
        )
        backup = ScriptedChatModel(
            script={
                "router": [route("vectorstore")],
                "grader": grade_by_keyword("newton metres"),
                "generator": [TORQUE_ANSWER],
                "verifier": [verdict(True)],
            },
            model_name="backup",
        )
        deps = make_deps(
            es,
            corpus_tenant,
            Models.single(down, fallbacks=(backup,)),
            redactor,
            index_prefix=settings.index_prefix,
        )
        state = run_turn(deps, TORQUE_Q)

        assert state["outcome"]["status"] == "answered"
        failed = [c for c in state["calls"] if not c["ok"]]
        assert failed and {c["model"] for c in failed} == {"primary"}
        assert all(c["error"].endswith("ConnectionError") for c in failed)
        assert all(c["model"] == "backup" for c in state["calls"] if c["ok"])

    def test_every_model_down_abstains_with_model_unavailable(
        self, es: Any, corpus_tenant: str, redactor: Any, settings: Any
    ) -> None:
        from langchain_openai import ChatOpenAI

        from pipeline.deps import Models

        def down(name: str) -> Any:
            return ChatOpenAI(
                base_url="http://127.0.0.1:9/v1", model=name, api_key="x", max_retries=0, timeout=2
            )

        deps = make_deps(
            es,
            corpus_tenant,
            Models.single(down("primary"), fallbacks=(down("backup"),)),
            redactor,
            index_prefix=settings.index_prefix,
        )
        state = run_turn(deps, TORQUE_Q)
        assert state["outcome"]["reason"] == "model_unavailable"


class TestSearchingForWhatTheAnswerLacked:
    """A claim its sources lack sends the question and that claim to the index (ITER-RETGEN,
    ``Limits.multi_hop``); a claim citing the wrong source is re-cited
    (``Limits.recite_claims``, off by default)."""

    BOLT_Q = (
        "What torque does the rotor shaft fastener need, and which part number do spindle "
        "bolts have?"
    )
    TWO_FACTS = answer(
        ("The rotor shaft fastener needs 12 newton metres.", [1]),
        ("Spindle bolts are ordered by part number QM-4471.", [1]),
    )

    def test_a_fact_missing_from_the_sources_is_searched_for_without_the_rewriter(
        self, deps_for: Any
    ) -> None:
        prompts: list[str] = []

        def generator(user: str) -> dict[str, Any]:
            prompts.append(user)
            if len(prompts) == 1:
                return self.TWO_FACTS
            # The second prompt shows the kept torque chunk first, then the catalogue.
            return answer(
                ("The rotor shaft fastener needs 12 newton metres.", [1]),
                ("Spindle bolts are ordered by part number QM-4471.", [2]),
            )

        model = ScriptedChatModel(
            script={
                "grader": grade_by_keyword("newton metres", "QM-4471"),
                "generator": generator,
                "verifier": [verdict(True, True)],
            }
        )
        limits = Limits(retrieve_k=1, multi_hop=True)
        state = run_turn(deps_for(model, limits=limits), self.BOLT_Q)

        assert state["trace"][2:] == [
            "retrieve",
            "assess_grades",
            "generate",
            "verify",  # in code: 4471 is in none of the claim's sources
            "rewrite_query",  # in code: no rewriter call
            "retrieve",
            "assess_grades",
            "generate",
            "verify",
            "finalize",
        ]
        assert "rewriter" not in model.roles_called()
        assert state["queries_tried"] == [
            self.BOLT_Q,
            f"{self.BOLT_Q} Spindle bolts are ordered by part number QM-4471.",
        ]
        # The torque chunk was graded once, in the first round; only the new one after it.
        assert model.roles_called().count("grader") == 2
        outcome = state["outcome"]
        assert outcome["status"] == "answered"
        assert [c["locator"].rsplit("/", 1)[-1] for c in outcome["citations"]] == [
            "rotor-maintenance.md",
            "catalogue.md",
        ]
        assert (state["rewrites"], state["generations"]) == (1, 2)
        assert "QM-4471" not in prompts[0].split("Question:")[0]
        assert prompts[1].index("12 newton metres") < prompts[1].index("QM-4471")

    @pytest.mark.parametrize(
        "limits",
        [Limits(retrieve_k=1), Limits(retrieve_k=1, multi_hop=True, max_rewrites=0)],
        ids=["off by default", "no rewrite left"],
    )
    def test_otherwise_it_is_written_again_and_abstains(
        self, deps_for: Any, limits: Limits
    ) -> None:
        model = ScriptedChatModel(
            script={
                "grader": grade_by_keyword("newton metres", "QM-4471"),
                "generator": [self.TWO_FACTS, self.TWO_FACTS],
            }
        )
        state = run_turn(deps_for(model, limits=limits), self.BOLT_Q)

        assert state["trace"][-5:] == ["generate", "verify", "generate", "verify", "abstain"]
        assert state["outcome"]["reason"] == "ungrounded"
        detail = state["outcome"]["detail"]
        assert 'claim 2 states 4471, absent from its sources: "Spindle bolts are' in detail
        assert "claim 1" not in detail  # the supported claim is not named
        assert "verifier" not in model.roles_called()

    MISCITED = answer(
        ("The rotor shaft fastener needs 12 newton metres.", [2]),
        ("Spindle bolts are ordered by part number QM-4471.", [2]),
    )

    def test_a_claim_citing_the_wrong_source_is_re_cited_to_the_one_that_states_it(
        self, deps_for: Any
    ) -> None:
        model = ScriptedChatModel(
            script={
                "grader": grade_by_keyword("newton metres", "QM-4471"),
                "generator": [self.MISCITED],
                "verifier": [verdict(True, True)],
            }
        )
        state = run_turn(deps_for(model, limits=Limits(recite_claims=True)), self.BOLT_Q)

        assert state["trace"][-3:] == ["generate", "verify", "finalize"]
        generation = state["generation"]
        cited = [generation["sources"].index(c["source_ids"][0]) + 1 for c in generation["claims"]]
        located = {c["n"]: c["locator"].rsplit("/", 1)[-1] for c in state["outcome"]["citations"]}
        # Claim 1 now cites the torque chunk (it cited the catalogue), claim 2 the catalogue.
        assert [located[n] for n in cited] == ["rotor-maintenance.md", "catalogue.md"]
        # The verifier judged each claim against the source it now cites.
        verifier_prompt = next(u for r, u in model.calls if r == "verifier")
        assert f"12 newton metres. (cites [{cited[0]}])" in verifier_prompt

    def test_with_re_citing_off_the_miscited_claim_is_refused(self, deps_for: Any) -> None:
        model = ScriptedChatModel(
            script={
                "grader": grade_by_keyword("newton metres", "QM-4471"),
                "generator": [self.MISCITED, self.MISCITED],
            }
        )
        limits = Limits(recite_claims=False, max_rewrites=0)
        state = run_turn(deps_for(model, limits=limits), self.BOLT_Q)

        assert state["outcome"]["reason"] == "ungrounded"
        detail = state["outcome"]["detail"]
        assert 'claim 1 states 12, absent from its sources: "The rotor' in detail
        assert "verifier" not in model.roles_called()
