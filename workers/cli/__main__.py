"""``python -m workers.cli``: the ``crag`` command."""

from workers.cli.main import app

app()
