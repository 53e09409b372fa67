"""Checkpoints at rest: nothing readable in Postgres, and key rotation keeps old threads
readable while the old key is configured (real Postgres, the real graph, scripted model)."""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from pipeline.deps import Models
from pipeline.graph import RECURSION_LIMIT, build_graph
from tests.integration.graph_helpers import torque_model
from workers.contracts.jobs import new_job
from workers.core.context import context_of
from workers.core.deps import job_deps
from workers.core.runner import answer_job
from workers.core.tenants import ensure_tenant
from workers.runtime.checkpointing import CheckpointKeyError, KeyRing, encrypted_serde
from workers.runtime.resources import Resources, make_checkpointer, psycopg_url

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"


@pytest.fixture(scope="module")
def res(settings: Any, migrated_db: str) -> Iterator[Resources]:
    resources = Resources.create(settings, models=Models.single(torque_model()))
    yield resources
    resources.close()


def raw_rows(settings: Any, thread: str) -> list[bytes]:
    """Every stored byte of a thread's checkpoints, blobs and pending writes."""
    with psycopg.connect(psycopg_url(settings.database_url)) as conn:
        rows = conn.execute(
            "SELECT convert_to(checkpoint::text || metadata::text, 'UTF8') FROM checkpoints "
            "WHERE thread_id = %s UNION ALL "
            "SELECT convert_to(type, 'UTF8') || coalesce(blob, '') FROM checkpoint_blobs "
            "WHERE thread_id = %s UNION ALL "
            "SELECT convert_to(type, 'UTF8') || blob FROM checkpoint_writes WHERE thread_id = %s",
            (thread, thread, thread),
        ).fetchall()
    return [bytes(r[0]) for r in rows]


def test_no_question_or_answer_text_is_stored_readable(
    res: Resources, corpus_tenant: str, settings: Any
) -> None:
    ensure_tenant(res.sessions, corpus_tenant)
    marker = f"zebra{uuid.uuid4().hex[:8]}"
    job = new_job(corpus_tenant, f"th-enc-{marker}", f"{TORQUE_Q} ({marker})")
    answer_job(job, context_of(res))
    config = {"configurable": {"thread_id": job.graph_thread_id}}
    state = res.graph.get_state(config).values
    assert marker in state["question"]  # readable through the checkpointer…
    stored = raw_rows(settings, job.graph_thread_id)
    assert len(stored) > 10
    for needle in (marker, "newton metres", "rotor shaft"):
        assert not any(needle.encode() in row for row in stored), needle  # …not in Postgres
    assert any(b"+aesgcm-" in row for row in stored)


def key() -> bytes:
    return os.urandom(32)


def test_rotating_the_key_keeps_old_threads_readable_while_the_old_key_is_configured(
    res: Resources, corpus_tenant: str
) -> None:
    old, new = key(), key()

    def graph_with(keys: dict[str, bytes], current: str) -> Any:
        saver, pool = make_checkpointer(
            res.settings.database_url, max_size=1, serde=encrypted_serde(KeyRing(keys, current))
        )
        pools.append(pool)
        return build_graph(saver)

    pools: list[Any] = []
    job = new_job(corpus_tenant, f"th-rot-{uuid.uuid4().hex[:8]}", TORQUE_Q)
    config: Any = {
        "configurable": {"thread_id": job.graph_thread_id},
        "recursion_limit": RECURSION_LIMIT,
    }
    deps = job_deps(res, job)
    try:
        before = graph_with({"k1": old}, "k1")
        before.invoke({"question": TORQUE_Q}, config, context=deps)
        first_turn = before.get_state(config).config  # written under k1
        rotated = graph_with({"k1": old, "k2": new}, "k2")
        assert rotated.get_state(first_turn).values["question"] == TORQUE_Q  # k1 still read
        rotated.invoke({"question": f"{TORQUE_Q} Again?"}, config, context=deps)
        history = rotated.get_state(config).values["history"]
        assert [t["question"] for t in history] == [TORQUE_Q, f"{TORQUE_Q} Again?"]
        with pytest.raises(CheckpointKeyError, match="key 'k1', which is not configured"):
            graph_with({"k2": new}, "k2").get_state(first_turn)  # k1 retired too early
    finally:
        for pool in pools:
            pool.close()


def test_key_configuration_errors_name_the_problem() -> None:
    with pytest.raises(CheckpointKeyError, match="not among"):
        KeyRing({"a": key()}, "b")
    with pytest.raises(CheckpointKeyError, match="has 16 bytes; need 32"):
        KeyRing({"a": os.urandom(16)}, "a")
    ring = KeyRing({"a": key()}, "a")
    name, sealed = ring.encrypt(b"secret")
    assert ring.decrypt(name, sealed) == b"secret" and b"secret" not in sealed
    assert base64.b64encode(sealed)  # bytes, storable as bytea
