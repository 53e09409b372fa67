"""What a producer needs: submit a signed job, wait for its outcome.

Imports only :mod:`workers.contracts`, :mod:`workers.db` (the outcome a waiter reads) and
:mod:`workers.settings`; sends tasks by name, so it never builds the worker's Celery app.
"""
