"""Our worker with the peers' five-node graph in place of the corrective one.

``bench.fleet --graph trivial`` starts ``celery -A bench.trivial_app worker``: the same
Celery app, tasks, queue, thread line and lock, fence, encrypted Postgres checkpoints and
outcome rows as ``crag worker``; only the compiled graph is
:func:`bench.peer_graph.build_for_fleet`, so the run measures what the fleet adds around a
graph, on the graph the peer run servers are measured with. A benchmark device: nothing in
the product imports it.
"""

from __future__ import annotations

from bench.peer_graph import build_for_fleet
from workers.celery.app import app
from workers.runtime import resources

resources.build_graph = build_for_fleet  # read when a pool process builds its resources

__all__ = ["app"]
