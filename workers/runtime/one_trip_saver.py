"""``PostgresSaver`` whose writes are one SQL statement each: one round trip per checkpoint.

LangGraph's ``PostgresSaver.put`` sends the changed channel blobs with ``executemany`` and
then the checkpoint row, in psycopg's pipeline mode; ``put_writes`` sends one row per write
the same way. Measured on a job of the corrective graph (``bench.profile_job``, README
*Fleet overhead*), that row-by-row pipeline path was the largest CPU cost of the worker
(psycopg runs a Python generator per row). Here each call is a single statement that
unpacks arrays with ``unnest``: ``put`` writes its blobs in a data-modifying CTE of the
checkpoint's own ``INSERT`` (Postgres runs such a CTE exactly once, to completion, in the
same statement), so the blobs and the checkpoint still commit together or not at all, and
a checkpoint refused by the fencing trigger (:mod:`workers.db.fencing`) takes its blobs
with it, as before. Rows, tables, conflict rules and serialisation are LangGraph's own
(``_dump_blobs``, ``_dump_writes``, the ``ON CONFLICT`` clauses of its ``*_SQL``); reads are
unchanged. Written against langgraph-checkpoint-postgres 3.2.0 (pinned).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.base import WRITES_IDX_MAP, get_serializable_checkpoint_metadata
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from psycopg.types.json import Jsonb

PUT_SQL = """
WITH blobs AS (
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT %(thread_id)s, %(ns)s, u.channel, u.version, u.type, u.blob
    FROM unnest(%(channels)s::text[], %(versions)s::text[], %(types)s::text[],
                %(blobs)s::bytea[]) AS u(channel, version, type, blob)
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
)
INSERT INTO checkpoints
    (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
VALUES (%(thread_id)s, %(ns)s, %(checkpoint_id)s, %(parent_id)s, %(checkpoint)s, %(metadata)s)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id)
DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
"""
"""One checkpoint and its changed blobs (LangGraph's two upserts, in one statement)."""

_WRITES_SQL = """
INSERT INTO checkpoint_writes
    (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
SELECT %(thread_id)s, %(ns)s, %(checkpoint_id)s, %(task_id)s, %(task_path)s,
       u.idx, u.channel, u.type, u.blob
FROM unnest(%(idx)s::int[], %(channels)s::text[], %(types)s::text[], %(blobs)s::bytea[])
    AS u(idx, channel, type, blob)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
"""
UPSERT_WRITES_SQL = _WRITES_SQL + (
    "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob"
)
"""A task's writes when all are special channels (errors, interrupts…): the last wins."""
INSERT_WRITES_SQL = _WRITES_SQL + "DO NOTHING"
"""A task's ordinary writes: the first stored wins (a retried task writes the same)."""


class OneTripSaver(PostgresSaver):
    """A ``PostgresSaver`` that stores a checkpoint, or a task's writes, in one statement."""

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        """Store ``checkpoint`` and its changed blobs as ``PostgresSaver.put`` does, in one trip.

        Returns:
            The config of the stored checkpoint.

        Raises:
            psycopg.errors.RaiseException: The fencing trigger refused it (a newer run
                holds the thread); nothing of it was stored.
        """
        configurable = config["configurable"]
        thread_id = configurable["thread_id"]
        ns = configurable["checkpoint_ns"]
        copy = checkpoint.copy()
        copy["channel_values"] = values = dict(checkpoint["channel_values"])
        blob_values = {}
        for k, v in checkpoint["channel_values"].items():  # as PostgresSaver.put splits them
            if isinstance(v, _DeltaSnapshot):
                blob_values[k] = values.pop(k)
                values[k] = True
            elif not (v is None or isinstance(v, str | int | float | bool)):
                blob_values[k] = values.pop(k)
        versions = {k: v for k, v in new_versions.items() if k in blob_values}
        rows = self._dump_blobs(thread_id, ns, blob_values, versions)
        params = {
            "thread_id": thread_id,
            "ns": ns,
            "channels": [r[2] for r in rows],
            "versions": [r[3] for r in rows],
            "types": [r[4] for r in rows],
            "blobs": [r[5] for r in rows],
            "checkpoint_id": checkpoint["id"],
            "parent_id": configurable.get("checkpoint_id"),
            "checkpoint": Jsonb(copy),
            "metadata": Jsonb(get_serializable_checkpoint_metadata(config, metadata)),
        }
        with self._cursor() as cur:
            cur.execute(PUT_SQL, params)
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint["id"],
            }
        }

    def put_writes(
        self, config: Any, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        """Store a task's writes as ``PostgresSaver.put_writes`` does, in one statement."""
        configurable = config["configurable"]
        rows = self._dump_writes(
            configurable["thread_id"],
            configurable["checkpoint_ns"],
            configurable["checkpoint_id"],
            task_id,
            task_path,
            writes,
        )
        if not rows:
            return
        special = all(w[0] in WRITES_IDX_MAP for w in writes)
        params = {
            "thread_id": configurable["thread_id"],
            "ns": configurable["checkpoint_ns"],
            "checkpoint_id": configurable["checkpoint_id"],
            "task_id": task_id,
            "task_path": task_path,
            "idx": [r[5] for r in rows],
            "channels": [r[6] for r in rows],
            "types": [r[7] for r in rows],
            "blobs": [r[8] for r in rows],
        }
        with self._cursor() as cur:
            cur.execute(UPSERT_WRITES_SQL if special else INSERT_WRITES_SQL, params)
