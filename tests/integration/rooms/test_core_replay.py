"""A thread's history, replay and fork, on the real Postgres checkpointer (encrypted) and the
real Elasticsearch index; the model is scripted.

History lists every checkpoint of a turn oldest first with what changed; a replay from a past
checkpoint runs on in a new thread and leaves the original's checkpoints as they were; a fork
changes the state first and the run follows the change; a copy is encrypted like the
original and is deleted with it; bad input names the problem.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from pipeline.deps import Models
from tests.integration.graph_helpers import torque_model
from workers.cli.main import app as cli
from workers.cli.main import tenant_keys
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.progress import read_events
from workers.core.replay import ReplayError, history, replay, state_changes
from workers.core.retention import delete_threads
from workers.core.runner import answer_job
from workers.db.engine import transaction
from workers.runtime.resources import Resources, set_resources

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"


@pytest.fixture(scope="module")
def resources(settings: Any, migrated_db: str) -> Iterator[Resources]:
    model = torque_model(rewriter=lambda _: {"query": "safety goggles gloves"})
    res = Resources.create(settings, models=Models.single(model))
    set_resources(res)  # the CLI's commands use these (scripted) resources
    yield res
    set_resources(None)
    res.close()


@pytest.fixture
def answered(resources: Resources, corpus_tenant: str) -> str:
    """A thread of the corpus tenant with one answered turn; its id."""
    tenant_keys(corpus_tenant)
    thread = f"th-{uuid.uuid4().hex[:8]}"
    result = answer_job(new_job(corpus_tenant, thread, TORQUE_Q), context_of(resources))
    assert result.outcome is not None and result.outcome.status == "answered"
    return thread


def _before(rows: list[Any], node: str) -> str:
    return next(r.checkpoint_id for r in rows if r.next == (node,))


def test_history_lists_a_turns_checkpoints_oldest_first_with_what_changed(
    resources: Resources, corpus_tenant: str, answered: str
) -> None:
    rows = history(resources.sessions, resources.graph, corpus_tenant, answered)
    assert [r.step for r in rows] == sorted(r.step for r in rows)
    assert rows[0].source == "input" and rows[-1].next == ()
    assert rows[0].changed == () and rows[1].changed == ("question",)
    assert "outcome" in rows[-1].changed
    assert {("retrieve",), ("generate",), ("verify",)} <= {r.next for r in rows}
    # Each super-step's checkpoint names the nodes that wrote it: the ones due before it.
    assert [r.wrote for r in rows[1:]] == [r.next for r in rows[:-1]]
    assert next(r for r in rows if r.wrote == ("generate",)).changed[:2] == ("calls", "generation")
    shown = CliRunner().invoke(cli, ["thread", "history", corpus_tenant, answered])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.count("\n") == len(rows) and _before(rows, "generate") in shown.stdout


def test_a_replay_runs_on_in_a_new_thread_and_leaves_the_original_alone(
    resources: Resources, corpus_tenant: str, answered: str, settings: Any
) -> None:
    ctx = context_of(resources)
    before = history(resources.sessions, resources.graph, corpus_tenant, answered)
    copy = replay(ctx, corpus_tenant, answered, _before(before, "generate"))
    assert copy.thread_id.startswith(f"{answered}::replay-")
    assert copy.outcome.status == "answered" and "12 newton metres" in copy.outcome.answer
    # The copied state carries the path so far; only the steps after the checkpoint ran
    # again, and they told their story as they went.
    assert copy.outcome.path[-3:] == ["generate", "verify", "finalize"]
    kinds = [
        e["kind"]
        for e in read_events(
            resources.redis, corpus_tenant, copy.job_id, cipher=resources.progress_cipher
        )
    ]
    assert "route" not in kinds and kinds[:2] == ["node", "generate"] and "verdict" in kinds
    after = history(resources.sessions, resources.graph, corpus_tenant, answered)
    assert [r.checkpoint_id for r in after] == [r.checkpoint_id for r in before]
    copied = history(resources.sessions, resources.graph, corpus_tenant, copy.thread_id)
    assert copied[0].source == "fork" and copied[-1].next == ()
    # The copy is encrypted like the original: no question text in its rows.
    with transaction(resources.sessions) as session:
        raw = session.execute(
            text(
                "SELECT string_agg(encode(blob, 'escape'), '') FROM checkpoint_blobs "
                "WHERE thread_id = :t"
            ),
            {"t": f"{corpus_tenant}:{copy.thread_id}"},
        ).scalar_one()
    assert raw and "rotor shaft" not in raw
    # Deleting the original (retention, `crag forget`) deletes its copies too.
    with transaction(resources.sessions) as session:
        counts = delete_threads(session, resources.redis, corpus_tenant, [answered])
    assert counts["threads"] == 2
    with pytest.raises(ReplayError, match="deleted by retention or `crag forget`"):
        history(resources.sessions, resources.graph, corpus_tenant, copy.thread_id)
    with pytest.raises(ReplayError, match="deleted by retention"):
        replay(ctx, corpus_tenant, answered, before[-1].checkpoint_id)


def test_a_replay_of_an_ended_turn_gives_its_outcome_without_a_second_turn(
    resources: Resources, corpus_tenant: str, answered: str
) -> None:
    rows = history(resources.sessions, resources.graph, corpus_tenant, answered)
    copy = replay(context_of(resources), corpus_tenant, answered, rows[-1].checkpoint_id)
    assert copy.outcome.status == "answered" and copy.outcome.resumed
    config = {"configurable": {"thread_id": f"{corpus_tenant}:{copy.thread_id}"}}
    turns = resources.graph.get_state(config).values["history"]
    assert [t["question"] for t in turns] == [TORQUE_Q]  # the copy's one turn, not asked again


def test_a_fork_runs_on_from_changed_state(
    resources: Resources, corpus_tenant: str, answered: str
) -> None:
    rows = history(resources.sessions, resources.graph, corpus_tenant, answered)
    # Retrieval with a query that finds only the safety page: the grader keeps nothing.
    fork = replay(
        context_of(resources),
        corpus_tenant,
        answered,
        _before(rows, "retrieve"),
        state_changes({"query": json.dumps("protective gloves goggles")}),
    )
    assert fork.thread_id.startswith(f"{answered}::fork-")
    assert fork.outcome.queries_tried[:2] == ["protective gloves goggles", "safety goggles gloves"]
    assert fork.outcome.status == "abstained" and fork.outcome.rewrites > 0


def test_bad_requests_name_the_problem(
    resources: Resources, corpus_tenant: str, answered: str
) -> None:
    ctx = context_of(resources)
    with pytest.raises(ReplayError, match="no thread"):
        history(resources.sessions, resources.graph, "someone-else", answered)
    with pytest.raises(ReplayError, match=r"no checkpoint .nope.*crag thread history"):
        replay(ctx, corpus_tenant, answered, "nope")
    with pytest.raises(ReplayError, match=r"'colour' is not a state field; fields: .*query"):
        state_changes({"colour": "blue"})
    runner = CliRunner()
    bad_set = runner.invoke(
        cli, ["thread", "fork", corpus_tenant, answered, "--from", "x", "--set", "query"]
    )
    assert bad_set.exit_code == 2 and "expected key=value" in bad_set.output
    other = runner.invoke(cli, ["thread", "replay", "someone-else", answered, "--from", "x"])
    assert other.exit_code == 2 and f"no thread '{answered}'" in other.output
    rows = history(resources.sessions, resources.graph, corpus_tenant, answered)
    shown = runner.invoke(
        cli, ["thread", "replay", corpus_tenant, answered, "--from", _before(rows, "verify")]
    )
    assert shown.exit_code == 0, shown.output
    assert "verify" in shown.stdout and "grounded: True" in shown.stdout
    assert f"new thread {answered}::replay-" in shown.stdout
