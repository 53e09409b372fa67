"""Direct tests of the rooms of ``workers/`` that need no services."""
