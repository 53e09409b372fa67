"""Direct tests of the rooms of ``workers/``, one file per room and subject."""
