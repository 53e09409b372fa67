"""Celery plumbing: the app, the hardened broker transport, the consumer and the tasks.

The tasks are thin: parse the message, call :mod:`workers.core`, map its decision to a
retry.
"""
