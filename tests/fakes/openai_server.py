"""An OpenAI-compatible ``/v1/chat/completions`` endpoint backed by a scripted chat model.

Lets a real worker process (using ``ChatOpenAI`` over HTTP) run the graph against scripted
replies: the stand-in is for the model only; everything else in the run is real.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from tests.fakes.chat import ScriptedChatModel

_TYPES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


class FakeOpenAIServer:
    """Serves ``POST /v1/chat/completions`` from ``model`` on 127.0.0.1 (free port)."""

    def __init__(self, model: ScriptedChatModel) -> None:
        self.model = model
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                server.requests += 1
                messages: list[BaseMessage] = [
                    _TYPES[m["role"]](content=m["content"]) for m in body["messages"]
                ]
                try:
                    reply = server.model.invoke(messages)
                    status, payload = 200, _completion(body.get("model", "fake"), reply)
                except Exception as exc:  # scripted outage
                    status, payload = 503, {"error": {"message": str(exc), "type": "outage"}}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _completion(model: str, reply: BaseMessage) -> dict[str, Any]:
    usage = getattr(reply, "usage_metadata", None) or {}
    return {
        "id": f"chatcmpl-{time.time_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": reply.content},
            }
        ],
        "usage": {
            "prompt_tokens": usage.get("input_tokens", 0),
            "completion_tokens": usage.get("output_tokens", 0),
            "total_tokens": usage.get("total_tokens", 0),
        },
    }
