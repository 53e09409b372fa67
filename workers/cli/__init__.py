"""The ``crag`` command: one module per command group, and the demo."""
