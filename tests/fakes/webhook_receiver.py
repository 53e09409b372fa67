"""A webhook consumer on 127.0.0.1 that verifies Standard Webhooks signatures and keeps
every delivery (headers and body), so tests can count re-deliveries and compare ids."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks.webhooks import Webhook


@dataclass(frozen=True)
class Delivery:
    webhook_id: str
    body: dict[str, Any]
    verified: bool


class WebhookSink:
    """Records deliveries; answers 204 when the signature verifies, 401 otherwise, and 500
    to the first ``fail_first`` deliveries (a receiver having a bad time)."""

    def __init__(self, secret: str, fail_first: int = 0) -> None:
        self.deliveries: list[Delivery] = []
        self.fail_first = fail_first
        self._verifier = Webhook(secret)
        self._cond = threading.Condition()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                headers = dict(self.headers.items())
                try:
                    sink._verifier.verify(raw, headers)
                    verified = True
                except Exception:
                    verified = False
                with sink._cond:
                    failing = len(sink.deliveries) < sink.fail_first
                    sink.deliveries.append(
                        Delivery(headers.get("webhook-id", ""), json.loads(raw), verified)
                    )
                    sink._cond.notify_all()
                self.send_response(500 if failing else 204 if verified else 401)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/hook"

    def for_job(self, job_id: str) -> list[Delivery]:
        with self._cond:
            return [d for d in self.deliveries if d.body.get("job_id") == job_id]

    def wait_for(self, job_id: str, count: int = 1, timeout_s: float = 60) -> list[Delivery]:
        with self._cond:
            self._cond.wait_for(lambda: len(self.for_job_locked(job_id)) >= count, timeout_s)
            return self.for_job_locked(job_id)

    def for_job_locked(self, job_id: str) -> list[Delivery]:
        return [d for d in self.deliveries if d.body.get("job_id") == job_id]

    def __enter__(self) -> WebhookSink:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
