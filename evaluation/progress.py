"""The progress bar of ``crag eval``: item i/n, the arm, elapsed time and running counts."""

from __future__ import annotations

from collections import Counter
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from evaluation.scoring import ItemResult


class EvalProgress:
    """A rich progress bar over ``total`` runs (items x arms), on ``console``.

    The line shows the run in progress (arm and item id), runs done of ``total``, elapsed
    time, and per arm the counts so far (on a console that is not a terminal, a line per
    finished run instead): ``+`` correct (an answer, or an abstention on an
    unanswerable), ``-`` hallucinated, ``0`` not answered, ``!`` failed (of those).
    """

    def __init__(self, console: Console, total: int) -> None:
        self._counts: dict[str, Counter[str]] = {}
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[counts]}"),
            console=console,
        )
        self._task: TaskID = self._progress.add_task("starting", total=total, counts="")

    def __enter__(self) -> EvalProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def start(self, item_id: str, arm: str) -> None:
        """Show that ``arm`` is running item ``item_id``."""
        self._progress.update(self._task, description=f"{arm:<5} {item_id}")

    def done(self, result: ItemResult) -> None:
        """Count a finished run and advance the bar."""
        counts = self._counts.setdefault(result.arm, Counter())
        counts["+"] += result.correct
        counts["-"] += result.hallucinated
        counts["0"] += result.abstained
        counts["!"] += result.status == "failed"
        shown = "  ".join(
            f"{arm} +{c['+']} -{c['-']} 0:{c['0']} !{c['!']}" for arm, c in self._counts.items()
        )
        self._progress.update(self._task, advance=1, counts=shown)
        if not self._progress.console.is_terminal:  # a log or CI: no live bar, so a line each
            self._progress.console.print(
                f"{result.arm:<5} {result.item_id:<8} {result.status:<9} "
                f"{'correct' if result.correct else 'hallucinated' if result.hallucinated else '-'}"
                f"  {result.latency_s:.0f}s  [{shown}]",
                highlight=False,
            )
