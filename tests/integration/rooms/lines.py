"""A thread's line of jobs for the room tests, and the answer messages on a private queue."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Container
from datetime import UTC, datetime, timedelta

from workers.contracts.jobs import Job, new_job
from workers.contracts.line import join_line
from workers.core.tenants import ensure_tenant
from workers.db import repository as repo
from workers.db.engine import transaction
from workers.runtime.resources import Resources


def thread_line(
    res: Resources,
    tenant: str,
    n: int,
    question: str = "question",
    register: Container[int] | None = None,
) -> list[Job]:
    """``n`` jobs on a fresh thread, a second apart (submitted half a minute ago), all in its
    Redis line; ``register``: of them, those in the jobs table too (default all), as jobs a
    worker has already seen. Job ``i`` asks ``f"{question} (case {i})"``."""
    ensure_tenant(res.sessions, tenant)
    thread = f"th-line-{uuid.uuid4().hex[:8]}"
    start = datetime.now(UTC) - timedelta(seconds=30)
    jobs = [
        new_job(tenant, thread, f"{question} (case {i})").model_copy(
            update={"submitted_at": start + timedelta(seconds=i)}
        )
        for i in range(n)
    ]
    with transaction(res.sessions) as session:
        for i, job in enumerate(jobs):
            join_line(res.redis, tenant, thread, job.job_id, job.submitted_at)
            if register is None or i in register:
                repo.register_job(session, job)
    return jobs


def queued(res: Resources) -> list[str]:
    """Job ids of the answer messages waiting on the questions queue, oldest first."""
    ids = []
    for raw in reversed(res.redis.lrange(res.settings.queue, 0, -1)):
        args = json.loads(base64.b64decode(json.loads(raw)["body"]))[0]
        ids.append(args[0]["job_id"])
    return ids
