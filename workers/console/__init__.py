"""The operator console (``crag console``), served on 127.0.0.1.

Recent jobs, a job's live timeline, dead letters, webhook deliveries with redeliver, and a
form to ask a question for a tenant.

FastAPI with Jinja2 pages and server-sent events for the live timeline; every request needs
the operator token (:mod:`workers.console.auth`). It reads what the fleet already keeps (the
jobs and outcomes tables, the dead letters, each job's progress stream) and acts only
through the fleet's own paths (a signed job on the questions queue, the delivery task).
"""
