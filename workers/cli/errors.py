"""How every ``crag`` command refuses: one red line naming the problem, exit status 2."""

from __future__ import annotations

import typer


def fail(message: str) -> typer.Exit:
    """Print ``error: <message>`` in red on stderr; returns the exit to raise (status 2)."""
    typer.secho(f"error: {message}", fg="red", err=True)
    return typer.Exit(2)
