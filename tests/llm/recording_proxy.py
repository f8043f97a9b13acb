"""A loopback logging proxy: forwards /v1/* to a real OpenAI-compatible server and records
every request/response pair, so real server behaviour can be committed as test fixtures
(tests/llm/fixtures/*.json) and replayed through `fake_openai.FakeOpenAI`.

    proxy = RecordingProxy("http://127.0.0.1:8080").start()
    ... OpenAI(base_url=proxy.url) ...
    proxy.save(path, server="llama.cpp (xllamacpp 2026.10.11549)", notes="...")

Fixture format: {"server", "notes", "exchanges": [{"request": {...body}, "response":
{"status", "json" | "body"}}]} — each response is a FakeOpenAI response spec as is.
Upstream must be loopback (the proxy refuses anything else: tests send nothing off the host).
"""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse


class RecordingProxy:
    def __init__(self, upstream: str) -> None:
        host = urlparse(upstream).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"upstream must be on loopback, got {upstream!r}")
        self.upstream = upstream.rstrip("/")
        self.exchanges: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> "RecordingProxy":
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = self.path[len("/v1"):] if self.path.startswith("/v1") else self.path
                req = urllib.request.Request(proxy.upstream + path, data=raw, method="POST",
                                             headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=600) as resp:
                        status, data = resp.status, resp.read()
                except urllib.error.HTTPError as exc:
                    status, data = exc.code, exc.read()
                try:
                    response: dict[str, Any] = {"status": status, "json": json.loads(data)}
                except (json.JSONDecodeError, UnicodeDecodeError):
                    response = {"status": status, "body": data.decode("utf-8", "replace")}
                try:
                    request = json.loads(raw)
                except json.JSONDecodeError:
                    request = raw.decode("utf-8", "replace")
                with proxy._lock:
                    proxy.exchanges.append({"path": self.path, "request": request, "response": response})
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def save(self, path: Path, *, server: str, notes: str = "") -> None:
        Path(path).write_text(json.dumps({"server": server, "notes": notes, "exchanges": self.exchanges},
                                         indent=1, ensure_ascii=False) + "\n")
