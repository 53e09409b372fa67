"""Fencing tokens enforced by Postgres itself, on the checkpointer's own table.

Every run writes its thread's fence into the metadata of each checkpoint it stores
(``crag_fence``, copied from the run's config metadata by LangGraph). A trigger on
LangGraph's ``checkpoints`` table refuses a checkpoint whose fence is older than the
thread's current one, in the same statement as the write, so a worker that lost its lock
and kept running cannot write over a newer run (Kleppmann, "How to do distributed locking",
2016). The tables belong to langgraph-checkpoint-postgres, so the trigger is installed by
``crag db upgrade`` after the checkpointer's own migrations, not by Alembic.
"""

from __future__ import annotations

from typing import Any

STALE_MARKER = "crag: stale fence"
"""Start of the error message the trigger raises (SQLSTATE P0001)."""

FUNCTION_SQL = f"""
CREATE OR REPLACE FUNCTION crag_refuse_stale_checkpoint() RETURNS trigger AS $$
DECLARE
    current_fence bigint;
BEGIN
    IF NEW.metadata ? 'crag_fence' THEN
        SELECT fence INTO current_fence FROM threads
            WHERE checkpoint_thread_id = NEW.thread_id;
        IF current_fence IS NOT NULL
           AND current_fence > (NEW.metadata->>'crag_fence')::bigint THEN
            RAISE EXCEPTION '{STALE_MARKER} % < % on thread %',
                NEW.metadata->>'crag_fence', current_fence, NEW.thread_id;
        END IF;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
"""

TRIGGER_SQL = """
CREATE OR REPLACE TRIGGER crag_fence_checkpoints
    BEFORE INSERT OR UPDATE ON checkpoints
    FOR EACH ROW EXECUTE FUNCTION crag_refuse_stale_checkpoint()
"""


def install(connection: Any) -> None:
    """Create or replace the fencing trigger (idempotent).

    Args:
        connection: An open psycopg connection (autocommit or in a transaction the caller
            commits) to a database where the checkpointer's tables already exist.
    """
    for statement in (FUNCTION_SQL, TRIGGER_SQL):
        connection.execute(statement, prepare=False)


def is_stale_fence(exc: BaseException) -> bool:
    """True if ``exc`` is the trigger refusing a stale run's checkpoint."""
    return STALE_MARKER in str(exc)
