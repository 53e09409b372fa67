"""A circuit breaker per model, shared by every worker through Redis.

Closed: calls flow, and outages are counted in a sliding window. After ``failures``
outages within ``window_s`` the circuit opens: for ``cooldown_s`` every worker skips the
model and goes straight to the next fallback. Then it is half-open: exactly one caller
fleet-wide gets to probe (``SET NX``); a success closes the circuit, a failure opens it
again. (Nygard, "Release It!", ch. 5; the states as in resilience4j.)

Keys: ``crag:breaker:{model}:failures`` (sorted set of failure times),
``…:open`` (expires after the cool-down), ``…:half`` (set while half-open),
``…:probe`` (held by the one prober). A Redis outage never blocks a call: the breaker then
allows everything.
"""

from __future__ import annotations

import logging
import time
import uuid

from redis import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


class RedisCircuitBreaker:
    """Implements :class:`pipeline.deps.CircuitBreaker` on Redis.

    Args:
        redis: The process-wide client.
        failures: Outages within ``window_s`` that open the circuit.
        window_s: Sliding window for counting outages, seconds.
        cooldown_s: How long an open circuit stays open, seconds.
        probe_ttl_s: How long the half-open probe may take before another caller may try.
    """

    def __init__(
        self,
        redis: Redis,
        *,
        failures: int = 5,
        window_s: float = 60.0,
        cooldown_s: float = 30.0,
        probe_ttl_s: float = 60.0,
    ) -> None:
        self._redis = redis
        self.failures, self.window_s = failures, window_s
        self.cooldown_s, self.probe_ttl_s = cooldown_s, probe_ttl_s

    @staticmethod
    def _key(model: str, part: str) -> str:
        return f"crag:breaker:{model}:{part}"

    def state(self, model: str) -> str:
        """``"open"``, ``"half_open"`` or ``"closed"`` (for traces and operators)."""
        if self._redis.exists(self._key(model, "open")):
            return "open"
        return "half_open" if self._redis.exists(self._key(model, "half")) else "closed"

    def allow(self, model: str) -> bool:
        """False while open; while half-open, True for exactly one probing caller."""
        try:
            is_open, half = self._redis.mget(self._key(model, "open"), self._key(model, "half"))
            if is_open is not None:
                return False
            if half is None:
                return True  # closed: one round trip
            return bool(
                self._redis.set(
                    self._key(model, "probe"),
                    uuid.uuid4().hex,
                    nx=True,
                    px=int(self.probe_ttl_s * 1000),
                )
            )
        except RedisError as exc:
            log.warning("circuit breaker unavailable, allowing %s: %s", model, exc)
            return True

    def record(self, model: str, ok: bool) -> None:
        """Count an outage (maybe opening the circuit) or close a half-open one on success."""
        try:
            if ok:
                if self._redis.exists(self._key(model, "half")):
                    self._redis.delete(
                        self._key(model, "half"),
                        self._key(model, "probe"),
                        self._key(model, "failures"),
                    )
                    log.info("circuit for %s closed", model)
                return
            if self._redis.exists(self._key(model, "half")):
                self._open(model)  # the probe failed
                return
            now = time.time()
            key = self._key(model, "failures")
            pipe = self._redis.pipeline()
            pipe.zadd(key, {uuid.uuid4().hex: now})
            pipe.zremrangebyscore(key, 0, now - self.window_s)
            pipe.zcard(key)
            pipe.expire(key, int(self.window_s) + 1)
            count = pipe.execute()[2]
            if count >= self.failures:
                self._open(model)
        except RedisError as exc:
            log.warning("circuit breaker unavailable, not recording %s: %s", model, exc)

    def _open(self, model: str) -> None:
        pipe = self._redis.pipeline()
        pipe.set(self._key(model, "open"), "1", px=int(self.cooldown_s * 1000))
        pipe.set(self._key(model, "half"), "1")  # half-open once "open" expires
        pipe.delete(self._key(model, "probe"), self._key(model, "failures"))
        pipe.execute()
        log.warning("circuit for %s opened for %.0fs", model, self.cooldown_s)
