"""Running one job, the fleet's own logic.

The runner, a thread's turns, outcomes, tenants' policies, retention, the failure policy and
progress events. Called by :mod:`workers.celery.tasks`; calls :mod:`workers.runtime`,
:mod:`workers.delivery` and :mod:`workers.db`.
"""
