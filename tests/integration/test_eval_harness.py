"""``crag eval`` end to end on a tiny labelled set over a tiny corpus: the graph arm through a
real worker process, the naive arm on the same index, both against one scripted
OpenAI-compatible model; the scores, the summary and the report are checked."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from corpus import index_name
from pipeline.schemas import ClaimOut, ClaimVerdict, GeneratedAnswer, RouteDecision, Verification
from tests.conftest import forget_tenant
from tests.fakes.chat import ScriptedChatModel, echo_condenser, grade_by_keyword
from tests.fakes.openai_server import FakeOpenAIServer
from workers.cli.main import app as cli
from workers.settings import Settings, get_settings

pytestmark = pytest.mark.integration

CORPUS = {
    "rotor.md": "# Rotor maintenance\n\nThe rotor shaft fastener needs a torque of 12 newton "
    "metres.\n",
    "pump.html": "<html><head><title>Pump care</title></head><body><h1>Pump care</h1>"
    "<p>Grease the pump bearings every 500 hours with the inlet valve closed.</p>"
    "</body></html>",
    "safety.md": "# Rotor safety\n\nNever touch a spinning rotor. Wear gloves and goggles.\n",
}

TORQUE_Q = "What torque does the rotor shaft fastener need?"
BEARINGS_Q = "How often should the pump bearings be greased?"
ZORBLAX_Q = "What colour is the Zorblax valve handle?"
FIFA_Q = "Who won the 2022 FIFA World Cup final?"


def entry(n: int, kind: str, question: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"pg-{n:03d}",
        "corpus": "pgdocs",
        "split": "dev",
        "kind": kind,
        "question": question,
        "answer_keywords": [],
        "pages": [],
        "reference_answer": "scripted",
        "absent_terms": [],
        "expected_route": "vectorstore",
    } | fields


ENTRIES = [
    entry(901, "answerable", TORQUE_Q, answer_keywords=[["12 newton metres"]], pages=["rotor.md"]),
    entry(902, "answerable", BEARINGS_Q, answer_keywords=[["500 hours"]], pages=["pump.html"]),
    entry(903, "unanswerable", ZORBLAX_Q, absent_terms=["Zorblax"]),
    entry(904, "off_domain", FIFA_Q, expected_route="web_search"),
]


def generator(user: str) -> dict[str, Any]:
    """Answers the torque question from its source; finds no answer in anything else."""
    if "newton metres" not in user:
        return GeneratedAnswer(claims=[]).model_dump()
    claim = ClaimOut(text="The rotor shaft fastener needs 12 newton metres.", sources=[1])
    return GeneratedAnswer(claims=[claim]).model_dump()


def naive(user: str) -> str:
    """The naive arm's model: right on torque, wrong on bearings, invents a Zorblax answer."""
    if ZORBLAX_Q in user:
        return "The Zorblax valve handle is red [1]."
    if TORQUE_Q in user:
        return "The fastener needs 12 newton metres [1]."
    if BEARINGS_Q in user:
        return "Grease them every 50 hours [1]."
    return "I don't know"


def scripted_model() -> ScriptedChatModel:
    verdict = Verification(claims=[ClaimVerdict(claim=1, supported=True)], resolves_question=True)
    return ScriptedChatModel(
        script={
            # Not asked while web search is off (the rules decide); scripted in case it is.
            "router": lambda _: RouteDecision(route="vectorstore", reason="scripted").model_dump(),
            # The grader wrongly keeps the pump page for the Zorblax question (it mentions
            # bearings): one false positive for the precision.
            "grader": grade_by_keyword("newton metres", "bearings"),
            "generator": generator,
            "verifier": lambda _: verdict.model_dump(),
            "condenser": echo_condenser,
            "unknown": naive,  # the naive arm's prompt is none of the graph's roles
        }
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("eval")
    (root / "corpus").mkdir()
    for name, text in CORPUS.items():
        (root / "corpus" / name).write_text(text)
    (root / "set.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ENTRIES))
    return root


@pytest.fixture(scope="module")
def eval_env(
    es: Any, migrated_db: str, redis_client: Any, workspace: Path
) -> Iterator[dict[str, Any]]:
    """The environment ``crag eval`` and its worker run in: the scripted model, no rewrites,
    no web; a tenant prefix of its own, cleaned up afterwards."""
    prefix = f"ev{uuid.uuid4().hex[:8]}"
    tenant = f"{prefix}-pgdocs"
    with FakeOpenAIServer(scripted_model()) as llm, pytest.MonkeyPatch.context() as mp:
        for name in [n for n in os.environ if n.startswith("CRAG_WEB_SEARCH")]:
            mp.delenv(name)
        mp.setenv("CRAG_LLM_BASE_URL", llm.base_url)
        mp.setenv("CRAG_MAX_REWRITES", "0")
        mp.setenv("CRAG_TRACE_CONSOLE", "false")
        get_settings.cache_clear()
        try:
            yield {"llm": llm, "prefix": prefix, "tenant": tenant, "dir": workspace}
        finally:
            get_settings.cache_clear()
            settings = Settings()
            es.indices.delete(
                index=index_name(tenant, settings.index_prefix), ignore_unavailable=True
            )
            forget_tenant(settings, tenant)


def crag_eval(env: dict[str, Any], out: Path, *args: str) -> Any:
    return CliRunner().invoke(
        cli,
        [
            "eval",
            "--file",
            str(env["dir"] / "set.jsonl"),
            "--corpus-root",
            f"pgdocs={env['dir'] / 'corpus'}",
            "--tenant-prefix",
            env["prefix"],
            "--out",
            str(out),
            "--worker-log",
            str(env["dir"] / "worker.log"),
            "--timeout",
            "60",
            *args,
        ],
    )


@pytest.fixture(scope="module")
def run(eval_env: dict[str, Any]) -> dict[str, Any]:
    out = eval_env["dir"] / "results.json"
    result = crag_eval(eval_env, out)
    assert result.exit_code == 0, (
        result.output + (eval_env["dir"] / "worker.log").read_text()[-3000:]
    )
    report = json.loads(out.read_text())
    items = {(r["arm"], r["item_id"]): r for r in report["results"]}
    return {"output": result.stdout, "report": report, "items": items, **eval_env}


def verdicts(items: dict[Any, dict[str, Any]], arm: str) -> dict[str, tuple[str, int]]:
    return {i: (r["status"], r["score"]) for (a, i), r in items.items() if a == arm}


def test_each_item_is_judged_per_arm(run: dict[str, Any]) -> None:
    assert verdicts(run["items"], "graph") == {
        "pg-901": ("answered", 1),
        "pg-902": ("abstained", 0),  # the generator found no answer
        "pg-903": ("abstained", 0),
        "pg-904": ("abstained", 0),
    }
    assert verdicts(run["items"], "naive") == {
        "pg-901": ("answered", 1),
        "pg-902": ("answered", -1),  # "50 hours": the keyword is "500 hours"
        "pg-903": ("answered", -1),  # invented an answer to an unanswerable question
        "pg-904": ("abstained", 0),
    }
    torque = run["items"][("graph", "pg-901")]
    assert torque["correct"] and "12 newton metres" in torque["answer"]
    assert [Path(c).name for c in torque["citations"]] == ["rotor.md"]
    assert run["items"][("graph", "pg-903")]["correct"]  # an abstention on an unanswerable
    assert run["items"][("naive", "pg-902")]["hallucinated"]


def test_summary_numbers(run: dict[str, Any]) -> None:
    graph = run["report"]["summary"]["graph"]["overall"]
    naive = run["report"]["summary"]["naive"]["overall"]
    assert (graph["n"], graph["answered"], graph["answered_correct"], graph["hallucinated"]) == (
        4,
        1,
        1,
        0,
    )
    assert (graph["abstained"], graph["failed"], graph["unanswerable_abstained"]) == (3, 0, 2)
    assert graph["crag_score"] == 0.25 and naive["crag_score"] == -0.25
    assert (naive["answered"], naive["hallucinated"]) == (3, 2)
    assert naive["hallucination_rate"] == pytest.approx(2 / 3)
    assert graph["router_accuracy"] == 0.75  # pg-904 expected web_search; web is off
    # Graded relevant: rotor (901), pump (902), pump (903, labelled irrelevant).
    assert (graph["grader_graded_relevant"], graph["grader_true_positive"]) == (3, 2)
    assert graph["grader_precision"] == pytest.approx(2 / 3) and graph["grader_recall"] == 1.0
    retrieval = run["report"]["retrieval_summary"]["overall"]
    assert (retrieval["n"], retrieval["hits"], retrieval["mrr"]) == (2, 2, 1.0)
    met = [t["met"] for t in run["report"]["targets"]]
    assert met == [True, True, False, True, True]  # 1 of 2 answerables correct: below 60%


def test_costs_match_what_the_model_server_saw(run: dict[str, Any]) -> None:
    calls = run["llm"].model.calls
    for item_id, question in [("pg-901", TORQUE_Q), ("pg-902", BEARINGS_Q)]:
        graph = [u for role, u in calls if role != "unknown" and question in u]
        naive = [u for role, u in calls if role == "unknown" and question in u]
        g, n = run["items"][("graph", item_id)], run["items"][("naive", item_id)]
        assert g["model_calls"] == len(graph) >= 2  # a grader and the generator at least
        assert g["prompt_tokens"] == sum(len(u) // 4 for u in graph)
        assert (n["model_calls"], n["prompt_tokens"]) == (1, len(naive[0]) // 4)
        assert g["latency_s"] > 0 and n["latency_s"] > 0
    assert run["items"][("graph", "pg-901")]["route"] == "vectorstore"
    assert run["items"][("naive", "pg-901")]["route"] is None


def test_the_table_and_the_settings_recorded(run: dict[str, Any]) -> None:
    settings = run["report"]["settings"]
    assert settings["tenants"] == {"pgdocs": run["tenant"]}
    assert (settings["retrieve_k"], settings["max_rewrites"], settings["split"]) == (4, 0, "all")
    assert settings["arms"] == ["graph", "naive"] and len(settings["git_commit"] or "") == 40
    out = run["output"]
    assert (
        "| graph | **overall** | 4 | 1/2 (50%) | 0 | 0/1 (0%) | 3 (0) | 2/2 (100%) | +0.25 |" in out
    )
    assert (
        "| naive | **overall** | 4 | 1/2 (50%) | 2 | 2/3 (67%) | 1 (0) | 1/2 (50%) | -0.25 |" in out
    )
    assert "| answerables answered correctly >= 60% | 1/2 = 50.0% | NOT met |" in out


def test_retrieval_only_runs_no_model(run: dict[str, Any]) -> None:
    before = len(run["llm"].model.calls)
    out = run["dir"] / "retrieval.json"
    result = crag_eval(run, out, "--retrieval-only")
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["results"] == [] and report["targets"] == []
    assert [(r["item_id"], r["hit"], r["rank"], r["answer_hit"]) for r in report["retrieval"]] == [
        ("pg-901", True, 1, True),
        ("pg-902", True, 1, True),
    ]
    assert len(run["llm"].model.calls) == before
    assert "ingesting" not in result.stderr  # the index is current: reused
    assert "| **overall** | 2 | 2/2 (100%) | 2/2 (100%) | 1.00 |" in result.stdout


def test_the_gold_arm_runs_the_graph_on_the_labelled_chunks_of_answerable_items(
    run: dict[str, Any],
) -> None:
    before = len(run["llm"].model.calls)
    out = run["dir"] / "gold.json"
    result = crag_eval(run, out, "--arms", "gold")
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["settings"]["arms"] == ["gold"]
    gold = {r["item_id"]: r for r in report["results"]}
    assert set(gold) == {"pg-901", "pg-902"}  # no gold chunk for the unanswerable kinds
    assert gold["pg-901"]["correct"] and gold["pg-901"]["arm"] == "gold"
    assert gold["pg-902"]["status"] == "abstained"  # the same generator finds no answer
    for r in gold.values():  # the labelled chunk is retrieved first and graded
        assert r["graded"][0]["labelled_relevant"] and r["graded"][0]["round"] == 0
        assert r["model_calls"] >= 2 and r["prompt_tokens"] > 0
    asked = [u for _, u in run["llm"].model.calls[before:]]
    assert any(TORQUE_Q in u for u in asked) and not any(ZORBLAX_Q in u for u in asked)


def test_hybrid_retrieval_gets_its_own_embedded_tenant(
    run: dict[str, Any], es: Any, settings: Settings
) -> None:
    out = run["dir"] / "hybrid.json"
    hybrid = f"{run['prefix']}-pgdocs-hybrid"
    try:
        result = crag_eval(run, out, "--retrieval-only", "--retrieval", "hybrid")
        assert result.exit_code == 0, result.output
        assert "embedded 3 chunks in" in result.stderr
        report = json.loads(out.read_text())
        assert report["settings"]["retrieval"] == "hybrid"
        assert report["settings"]["tenants"] == {"pgdocs": hybrid}
        assert [r["hit"] for r in report["retrieval"]] == [True, True]
        index = index_name(hybrid, settings.index_prefix)
        with_vectors = es.count(index=index, query={"exists": {"field": "vector"}})["count"]
        assert with_vectors == es.count(index=index)["count"] == len(CORPUS)  # every chunk
    finally:
        es.indices.delete(index=index_name(hybrid, settings.index_prefix), ignore_unavailable=True)
        forget_tenant(settings, hybrid)


def test_a_stale_index_is_ingested_again(run: dict[str, Any], es: Any) -> None:
    safety = run["dir"] / "corpus" / "safety.md"
    safety.write_text(safety.read_text() + "Lock the rotor before any maintenance.\n")
    result = crag_eval(run, run["dir"] / "stale.json", "--retrieval-only")
    assert result.exit_code == 0, result.output
    assert f"re-ingesting tenant {run['tenant']!r}" in result.stderr
    index = index_name(run["tenant"], Settings().index_prefix)
    hits = es.search(index=index, query={"match": {"text": "lock"}})["hits"]
    assert [h["_source"]["metadata"]["locator"] for h in hits["hits"]] == [str(safety.resolve())]


def test_a_malformed_eval_file_names_the_line_and_the_field(tmp_path: Path) -> None:
    bad = dict(ENTRIES[1])
    del bad["question"]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(ENTRIES[0]) + "\n" + json.dumps(bad) + "\n")
    result = CliRunner().invoke(cli, ["eval", "--file", str(path)])
    assert result.exit_code == 2
    assert "bad.jsonl:2 (id pg-902): field 'question': missing (required)" in result.stderr
