"""Where a job's turn stands on its thread's latest checkpoint: not begun, half run, or ended.

A worker killed mid-run leaves its turn's checkpoints behind, and the job's retry reads the
thread's latest one (``graph.get_state``, a *live* snapshot: the writes of tasks that
finished after it was taken are folded into its values) to decide what to do:

- ``"resume"``: the checkpoint is the job's own (its ``job_id`` is in the checkpoint
  metadata) and nodes are still due (``snapshot.next``) or tasks finished on it whose
  writes no checkpoint holds yet: stream from there with input ``None`` (LangGraph's
  durable execution: finished nodes do not run again, and their saved writes are applied);
- ``"ended"``: the job's own checkpoint after its input, nothing due, nothing pending, and
  an outcome: the turn ran to its end and only storing the outcome was lost; its state
  is the result;
- ``"new"``: anything else: start the turn with the question as input.

Two traps (``tests/integration/test_resume_points.py`` kills a turn after each of its
writes in turn):

- The *input* checkpoint. When a run starts on a thread that has turns, LangGraph 1.2
  first saves the input as a checkpoint (``source: "input"``) whose values are still the
  *previous* turn's, outcome and all; once the ``__start__`` task's writes are saved on
  it, ``snapshot.next`` is empty. Read as ``"ended"`` (a kill 44 ms into a job, in the
  drain-kill burst of ``tests/integration/test_faults.py``), the retry stored the previous
  turn's outcome as this job's answer, and the job's turn was never in the history.
- The last task's writes. A worker killed after ``finalize`` saved its writes but before
  the final checkpoint leaves a live snapshot that *looks* ended (the outcome is folded
  in), but no checkpoint holds it: the next job's new input discards those pending
  writes, and the turn vanished from the history one turn later. Such a turn is resumed,
  so LangGraph writes its final checkpoint without running ``finalize`` again.
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
        ``"resume"``, ``"ended"`` or ``"new"`` (see the module docstring). A replay's copy
        of an ended turn (``source: "fork"``, :mod:`workers.core.replay`) is ``"ended"``.
    """
    metadata = snapshot.metadata or {}
    if metadata.get("job_id") != job_id:
        return "new"
    pending = any(task.result is not None or task.error for task in snapshot.tasks)
    if snapshot.next or pending:
        return "resume"
    if metadata.get("source") != "input" and snapshot.values.get("outcome"):
        return "ended"
    return "new"
