"""The gateway's HTTP server on a Unix socket (docs/agents.md "CLI agents behind the gateway").

It listens on a socket file in a folder the harness made; the folder is bound read-only into the
sandbox (connect() needs no write access), so only the sandbox's processes and the harness reach
it, and the sandbox's network stays off. What it answers:

- `POST .../chat/completions`: the request's JSON to `on_chat`, which returns (status, JSON body).
  A request with `"stream": true` is answered as server-sent events: the whole reply in one chunk,
  then its usage, then `[DONE]` (the upstream request itself is not streamed);
- `GET .../models`: the one model the run uses;
- `POST /amb/upload/NAME`: a file the agent's wrapper hands over when the agent has ended (its
  trajectory: `UPLOAD_NAMES`, the last one kept), to `on_upload(NAME, bytes)`.

Anything else is 404. Bodies above `MAX_BODY` are refused (413) unread.
"""
from __future__ import annotations

import json
import os
import socketserver
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

MAX_BODY = 64 * 1024 * 1024   # a request body the gateway reads at most (a long conversation fits)
MAX_CONNECTIONS = 32          # connections served at once (each has its thread)
IDLE_TIMEOUT_S = 300.0        # a connection that sends nothing for this long is closed
UPLOAD_NAMES = frozenset({"trajectory.json"})   # the files a run's wrapper may hand over (the last kept)

ChatHandler = Callable[[dict[str, Any]], "tuple[int, dict[str, Any]]"]
UploadHandler = Callable[[str, bytes], None]


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """One thread per connection, at most MAX_CONNECTIONS at once: a connection beyond is closed
    at once, so commands in the sandbox cannot pile threads up in the harness."""
    daemon_threads = True
    gateway: "Gateway"
    slots: threading.BoundedSemaphore

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT_S    # a connection silent this long is dropped (its thread ends)

    def address_string(self) -> str:   # a Unix socket's peer has no address
        return "sandbox"

    def log_message(self, format: str, *args: Any) -> None:   # the trace records what matters
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes | None:
        try:
            n = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            n = -1
        if n < 0 or n > MAX_BODY:
            self._send(413, _error(f"request body of {n} bytes refused (at most {MAX_BODY})"))
            self.close_connection = True
            return None
        return self.rfile.read(n)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            name = self.server.gateway.model
            self._send(200, {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "gateway"}]})
        else:
            self._send(404, _error(f"no such path {self.path!r}"))

    def do_POST(self) -> None:
        gw = self.server.gateway
        raw = self._body()
        if raw is None:
            return
        if self.path.startswith("/amb/upload/"):
            name = self.path.rsplit("/", 1)[-1]
            if name not in UPLOAD_NAMES:   # what the harness reads, and nothing else kept
                self._send(404, _error(f"no upload named {name!r}"))
                return
            gw.on_upload(name, raw)
            self._send(200, {"ok": True})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, _error(f"no such path {self.path!r}: the gateway answers chat completions"))
            return
        try:
            request = json.loads(raw)
        except ValueError as exc:
            self._send(400, _error(f"the request body is not JSON: {exc}"))
            return
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
            self._send(400, _error("the request body must be a JSON object with a 'messages' list"))
            return
        status, body = gw.on_chat(request)
        if status == 200 and request.get("stream"):
            self._stream(body)
        else:
            self._send(status, body)

    def _stream(self, body: dict[str, Any]) -> None:
        """The reply as server-sent events: one chunk with the whole message, usage, [DONE]."""
        choice = (body.get("choices") or [{}])[0]
        message = dict(choice.get("message") or {})
        calls = message.get("tool_calls") or []
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        if calls:
            delta["tool_calls"] = [{**c, "index": i} for i, c in enumerate(calls)]
        base = {"id": body.get("id", "gw"), "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body.get("model", self.server.gateway.model)}
        chunks = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice.get("finish_reason")}]},
                  {**base, "choices": [], "usage": body.get("usage")}]
        data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


class Gateway:
    """One run's gateway: `start()` listens on `socket_path` in a thread, `close()` stops and
    removes the socket. The socket is made connectable by the sandbox's user (the sandbox may run
    under another uid); its folder decides who else can reach it."""

    def __init__(self, socket_path: Path, model: str, on_chat: ChatHandler,
                 on_upload: UploadHandler | None = None):
        self.socket_path = Path(socket_path)
        self.model = model
        self.on_chat = on_chat
        self.uploads: dict[str, bytes] = {}
        self.on_upload: UploadHandler = on_upload or self.uploads.__setitem__
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> "Gateway":
        self.socket_path.unlink(missing_ok=True)
        server = _Server(str(self.socket_path), _Handler)
        server.gateway = self
        server.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        os.chmod(self.socket_path, 0o777)
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="amb-gateway", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self.socket_path.unlink(missing_ok=True)

    def __enter__(self) -> "Gateway":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Gateway", "IDLE_TIMEOUT_S", "MAX_BODY", "MAX_CONNECTIONS", "UPLOAD_NAMES"]
