"""A fake OpenAI-compatible endpoint for tests: a real HTTP server on 127.0.0.1, not a patched client.

``FakeOpenAI`` answers ``POST /v1/chat/completions`` with a reply chosen by ``respond(request)``
(the parsed JSON body; return a string, or None for a 500), records every request, and counts
calls. Image parts (``image_url`` data URLs) are decoded into ``request["images"]`` so a test
can key its replies by the picture it was sent.
"""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


class FakeOpenAI:
    def __init__(self, respond: Callable[[dict], str | None]):
        self.respond = respond
        self.requests: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def _images_of(body: dict) -> list[bytes]:
    images = []
    for message in body.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:") and ";base64," in url:
                images.append(base64.b64decode(url.split(";base64,", 1)[1]))
    return images


def _handler_for(fake: FakeOpenAI):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's naming)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            request = {"path": self.path, "body": body, "images": _images_of(body),
                       "authorization": self.headers.get("Authorization")}
            fake.requests.append(request)
            reply = fake.respond(request) if self.path.endswith("/chat/completions") else None
            if reply is None:
                self._send(500, {"error": {"message": "no scripted reply"}})
                return
            self._send(200, {"id": "fake", "model": body.get("model", ""), "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": len(reply.split()), "total_tokens": 20}})

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:  # keep test output clean
            pass

    return Handler
