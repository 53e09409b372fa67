"""Small local HTTP services for the demo.

A webhook receiver that verifies Standard Webhooks signatures, and a web-search stand-in
that records the queries that would leave the fleet.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from standardwebhooks.webhooks import Webhook


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> _Server:
        self._thread.start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()


class WebhookReceiver(_Server):
    """Accepts outcome webhooks, verifies them with the tenant's secret, keeps them by job."""

    def __init__(self, secret: str) -> None:
        self._verifier = Webhook(secret)
        self._bodies: dict[str, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        super().__init__(self._handler())

    def __enter__(self) -> WebhookReceiver:
        super().__enter__()
        return self

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                payload = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    body = receiver._verifier.verify(payload, dict(self.headers.items()))
                except Exception:  # any verification failure is a 401, as the spec says
                    self.send_response(401)
                    self.end_headers()
                    return
                with receiver._arrived:
                    receiver._bodies[body["job_id"]] = body
                    receiver._arrived.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        return Handler

    def wait(self, job_id: str, timeout_s: float) -> dict[str, Any] | None:
        """Block until the outcome of ``job_id`` arrives (``None`` after ``timeout_s``)."""
        with self._arrived:
            self._arrived.wait_for(lambda: job_id in self._bodies, timeout=timeout_s)
            return self._bodies.get(job_id)


class EgressRecorder(_Server):
    """A Tavily-compatible endpoint that records each query and returns no results."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        super().__init__(self._handler())

    def __enter__(self) -> EgressRecorder:
        super().__enter__()
        return self

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                recorder.queries.append(str(body.get("query", "")))
                reply = json.dumps({"query": body.get("query"), "results": []}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                return

        return Handler
