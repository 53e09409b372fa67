"""The fleet: Celery app and tasks, per-thread locks, outcome store, webhook delivery, CLI."""
