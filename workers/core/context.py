"""The small context the core works over, instead of the whole process's resources.

:func:`workers.core.runner.answer_job`, :mod:`workers.core.failures` and
:mod:`workers.core.turns` need sessions, Redis, the compiled graph, the settings and a way
to build a job's :class:`pipeline.deps.Deps`; nothing else of
:class:`workers.runtime.resources.Resources` (pools, HTTP and Elasticsearch clients, the
breaker, the caches) is theirs to touch. Those stay behind :attr:`JobContext.deps_for`,
the one function that turns the process's clients into a job's dependencies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from langgraph.checkpoint.serde.base import CipherProtocol
from redis import Redis
from sqlalchemy.orm import Session, sessionmaker

from pipeline.deps import Deps, Redactor
from workers.contracts.jobs import Job
from workers.core.deps import job_deps
from workers.core.tenants import TenantPolicy
from workers.delivery.progress_push import ProgressPusher, pusher_for
from workers.runtime.resources import Resources
from workers.settings import Settings

DepsFactory = Callable[[Job, TenantPolicy | None], Deps]
"""``(job, tenant policy or None) -> Deps``: a job's dependencies for one graph run."""


@dataclass(frozen=True)
class JobContext:
    """What the core uses to answer a job.

    Attributes:
        settings: Process settings (deadlines, poll interval, lock TTL, queue, apology).
        sessions: Opens the short transactions the core commits (see ``answer_job``).
        redis: Thread lines, locks, wake-ups, progress streams and outcome channels.
        graph: The compiled corrective-RAG graph (:func:`pipeline.graph.build_graph`)
            with its checkpointer.
        deps_for: Builds a job's :class:`pipeline.deps.Deps` (models, the tenant's
            retriever, web search and its egress record, limits, breaker).
        redactor: Redacts the question for a debug trace attribute
            (``CRAG_TRACE_QUESTION``); never used on the answer path.
        cipher: Encrypts progress payloads (the checkpoint keys; ``None``: encryption off).
        pusher: Posts progress events to a job's ``progress_url`` off the job's thread.
    """

    settings: Settings
    sessions: sessionmaker[Session]
    redis: Redis
    graph: Any
    deps_for: DepsFactory
    redactor: Redactor
    cipher: CipherProtocol | None = None
    pusher: ProgressPusher | None = None


def context_of(res: Resources) -> JobContext:
    """The core's context over this process's resources (cheap; build it per call)."""
    return JobContext(
        settings=res.settings,
        sessions=res.sessions,
        redis=res.redis,
        graph=res.graph,
        deps_for=partial(job_deps, res),
        redactor=res.redactor,
        cipher=res.progress_cipher,
        pusher=pusher_for(res.http),
    )
