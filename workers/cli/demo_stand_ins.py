"""Small local HTTP services: a webhook receiver and a web-search stand-in.

The receiver verifies Standard Webhooks signatures with the tenant's secret and keeps every
delivery; the demo prints from it and the tests assert on it. The stand-in is a
Tavily-compatible endpoint that records the queries that would leave the fleet and returns
no results (there is no internet here).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
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
        """Base URL, ``http://127.0.0.1:<port>``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        """Serve in a background thread."""
        self._thread.start()

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        return

    def reply(self, status: int, body: bytes = b"") -> None:
        self.send_response(status)
        if body:
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass(frozen=True)
class Delivery:
    """One webhook request as received (``received_at``: ``time.monotonic()`` seconds)."""

    webhook_id: str
    body: dict[str, Any]
    verified: bool
    received_at: float = field(default_factory=time.monotonic)


class WebhookReceiver(_Server):
    """Accepts outcome webhooks and keeps every delivery.

    Answers 204 when the signature verifies with ``secret`` and 401 otherwise (as the
    Standard Webhooks spec asks of consumers). To exercise the sender's retries, the n-th
    delivery (from 0) gets ``replies[n]`` while there are replies left: an HTTP status, or
    ``"hang"`` (answer 204 only after ``hang_s`` seconds, past the sender's timeout); then
    the next ``fail_first`` deliveries in all get ``fail_status``.
    """

    def __init__(
        self,
        secret: str,
        fail_first: int = 0,
        fail_status: int = 500,
        replies: Sequence[int | str] = (),
        hang_s: float = 3.0,
    ) -> None:
        self.deliveries: list[Delivery] = []
        self.fail_first = fail_first
        self.fail_status = fail_status
        verifier = Webhook(secret)
        arrived = self._arrived = threading.Condition()
        receiver = self

        def reply_to(n: int, verified: bool) -> int | str:
            if n < len(replies):
                return replies[n]
            if n < receiver.fail_first:
                return receiver.fail_status
            return 204 if verified else 401

        class Handler(_Quiet):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                headers = dict(self.headers.items())
                try:
                    verifier.verify(raw, headers)
                    verified = True
                except Exception:  # any verification failure means "not from the fleet"
                    verified = False
                with arrived:
                    reply = reply_to(len(receiver.deliveries), verified)
                    receiver.deliveries.append(
                        Delivery(headers.get("webhook-id", ""), json.loads(raw), verified)
                    )
                    arrived.notify_all()
                if reply == "hang":
                    time.sleep(hang_s)
                    reply = 204
                self.reply(int(reply))

        super().__init__(Handler)

    def __enter__(self) -> WebhookReceiver:
        self.start()
        return self

    def _for_job(self, job_id: str) -> list[Delivery]:
        return [d for d in self.deliveries if d.body.get("job_id") == job_id]

    def wait_for(self, job_id: str, count: int = 1, timeout_s: float = 60) -> list[Delivery]:
        """Block until ``count`` deliveries for ``job_id`` arrived or ``timeout_s`` passed.

        Returns:
            The deliveries for the job so far, in arrival order (fewer than ``count`` on
            timeout).
        """
        with self._arrived:
            self._arrived.wait_for(lambda: len(self._for_job(job_id)) >= count, timeout_s)
            return self._for_job(job_id)


class EgressRecorder(_Server):
    """A Tavily-compatible ``POST /search`` that records each query and returns no results."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        recorder = self

        class Handler(_Quiet):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                recorder.queries.append(str(body.get("query", "")))
                self.reply(200, json.dumps({"query": body.get("query"), "results": []}).encode())

        super().__init__(Handler)

    def __enter__(self) -> EgressRecorder:
        self.start()
        return self
