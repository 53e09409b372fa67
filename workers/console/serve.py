"""Building the console for a process: its sessions, Redis client and Celery producer."""

from __future__ import annotations

from fastapi import FastAPI
from redis import Redis

from workers.celery.app import producer_app
from workers.console.app import ConsoleContext, create_app
from workers.db.engine import make_engine, make_sessionmaker
from workers.runtime.checkpointing import key_ring_from_settings
from workers.settings import Settings


def console_app(settings: Settings, token: str) -> FastAPI:
    """The console over the services of ``settings``, guarded by ``token``.

    Raises:
        ValueError: ``token`` is shorter than 16 characters.
        workers.runtime.checkpointing.CheckpointKeyError: Encryption is on and no key is
            configured (the console decrypts progress payloads with the checkpoint keys).
    """
    if len(token) < 16:
        raise ValueError("CRAG_CONSOLE_TOKEN must be at least 16 characters long")
    ctx = ConsoleContext(
        settings=settings,
        sessions=make_sessionmaker(make_engine(settings.database_url, pool_size=4)),
        redis=Redis.from_url(settings.redis_url),
        producer=producer_app(settings),
        token=token,
        cipher=key_ring_from_settings(settings),
    )
    return create_app(ctx)
