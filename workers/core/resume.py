"""Where a job's turn stands on its thread's latest checkpoint: not begun, half run, or ended.

A worker killed mid-run leaves its turn's checkpoints behind, and the job's retry reads the
thread's latest one (``graph.get_state``) to decide what to do:

- ``"resume"``: the checkpoint is the job's own (its ``job_id`` is in the checkpoint
  metadata) and nodes are still due (``snapshot.next``): stream from there with input
  ``None`` (LangGraph's durable execution; finished nodes do not run again);
- ``"ended"``: the job's own *loop* checkpoint with nothing due, and an outcome: the turn
  ran to its end and only storing the outcome was lost; its state is the result;
- ``"new"``: anything else: start the turn with the question as input.

The *input* checkpoint is the trap. When a run starts on a thread that has turns,
LangGraph 1.2 first saves the input as a checkpoint (``source: "input"``) whose values are
still the *previous* turn's, outcome and all; once the ``__start__`` task's writes are saved
on it, ``snapshot.next`` is empty too (the next nodes are known only from the checkpoint
after). A worker killed between those writes and its next checkpoint (a kill 44 ms into a
job) left what looks like a finished turn of this job; read as ``"ended"``, the retry stored
the previous turn's outcome as this job's answer, and the job's own turn was never in the
thread's history (caught by the drain-kill burst, ``tests/integration/test_faults.py``;
every write boundary is walked by ``tests/integration/test_resume_points.py``). So only a
``"loop"`` checkpoint can end a turn, and an input checkpoint with nothing due is ``"new"``.
"""

from __future__ import annotations

from typing import Any, Literal

TurnStage = Literal["new", "resume", "ended"]


def turn_stage(snapshot: Any, job_id: str) -> TurnStage:
    """Where ``job_id``'s turn stands, from the thread's latest ``StateSnapshot``.

    Args:
        snapshot: ``graph.get_state(config)`` of the job's thread (``metadata`` is ``None``
            on a thread without checkpoints).
        job_id: The job about to run.

    Returns:
        ``"resume"``, ``"ended"`` or ``"new"`` (see the module docstring).
    """
    metadata = snapshot.metadata or {}
    if metadata.get("job_id") != job_id:
        return "new"
    if snapshot.next:
        return "resume"
    if metadata.get("source") == "loop" and snapshot.values.get("outcome"):
        return "ended"
    return "new"
