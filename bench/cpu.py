"""CPU seconds used by a process and its descendants, from ``/proc`` (Linux only)."""

from __future__ import annotations

import os
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """``(parent pid, user+system CPU seconds)`` of a live process, or ``None``."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces.
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def tree_cpu_s(root: int) -> float:
    """User+system CPU seconds of ``root`` and every live descendant of it.

    Descendants that have already exited are not counted (a benchmark's worker pool keeps
    its processes for the whole run).
    """
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            got = _stat(int(entry.name))
            if got is not None:
                parents[int(entry.name)], cpu[int(entry.name)] = got
    total = 0.0
    for pid, used in cpu.items():
        p = pid
        while p > 1:
            if p == root:
                total += used
                break
            p = parents.get(p, 0)
    return total
