"""A loopback OpenAI-compatible test server (stdlib only) serving a scripted queue.

    srv = FakeOpenAI().start()
    srv.push(completion(tool_calls=[call("execute_code", {"language": "bash", "code": "ls"})]))
    ... OpenAI(base_url=srv.url) ...
    srv.requests[0]["body"]["messages"]

A scripted response is a dict with any of:
  status (default 200), json (a body serialised as JSON), body (raw str/bytes),
  headers (dict), hang (seconds to sleep before answering, e.g. beyond the client timeout)
or a callable(request_dict) -> such a dict. When the queue is empty, `default` is served
(a 500 unless set), so a test that makes more calls than scripted sees failures, not hangs.

Fixtures (tests/llm/fixtures/*.json, recorded through recording_proxy.py or written from a
server's documentation; each says which in "server"/"notes") are replayed with
`srv.replay(load_fixture(name))`: their responses are served in order.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from automedbench.llm.check import CHECK_PROMPT, TOOL_PROMPT

_counter = {"n": 0}
FIXTURES = Path(__file__).with_name("fixtures")


def load_fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def fixture_responses(name: str) -> list[dict[str, Any]]:
    return [ex["response"] for ex in load_fixture(name)["exchanges"]]


def usage(prompt: int, completion: int, cached: int | None = None) -> dict[str, Any]:
    u: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                         "total_tokens": prompt + completion}
    if cached is not None:
        u["prompt_tokens_details"] = {"cached_tokens": cached}
    return u


def call(name: str, arguments: dict | str | None = None, id: str | None = None) -> dict[str, Any]:
    _counter["n"] += 1
    args = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return {"id": id or f"call_{_counter['n']}", "type": "function",
            "function": {"name": name, "arguments": args}}


def completion(content: str | None = None, tool_calls: list | None = None, finish_reason: str | None = None,
               usage_: dict | None | bool = True, model: str = "fake-model") -> dict[str, Any]:
    """A 200 response spec with one choice."""
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    body: dict[str, Any] = {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": msg,
                     "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop")}]}
    if usage_ is True:
        body["usage"] = usage(100, 20)
    elif isinstance(usage_, dict):
        body["usage"] = usage_
    return {"status": 200, "json": body}


def error(status: int, message: str = "error", headers: dict | None = None) -> dict[str, Any]:
    return {"status": status, "json": {"error": {"message": message, "type": "test"}}, "headers": headers or {}}


def _first_user(body: Any) -> str | None:
    msgs = body.get("messages") if isinstance(body, dict) else None
    first = msgs[0] if isinstance(msgs, list) and msgs and isinstance(msgs[0], dict) else {}
    return first.get("content") if isinstance(first.get("content"), str) else None


class FakeOpenAI:
    def __init__(self) -> None:
        self.queue: deque = deque()
        self.requests: list[dict[str, Any]] = []
        self.default: dict[str, Any] | Callable = error(500, "fake server: script exhausted")
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        # the models this server serves: when set, GET /models lists them and a chat request for
        # another model gets OpenAI's 404 "model ... does not exist" (as vLLM / OpenAI answer)
        self.models: list[str] | None = None
        # the endpoint check `automedbench run`/`sweep` send first (llm/check.py) is answered "ok" (or
        # with a tool call) without touching the script, unless a test scripts the checks itself
        self.script_checks = False

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, *responses: dict | Callable) -> "FakeOpenAI":
        with self._lock:
            self.queue.extend(responses)
        return self

    def replay(self, fixture: dict[str, Any] | str) -> "FakeOpenAI":
        """Serve a fixture's recorded responses, in order."""
        fx = load_fixture(fixture) if isinstance(fixture, str) else fixture
        return self.push(*[ex["response"] for ex in fx["exchanges"]])

    def chat_requests(self) -> list[dict[str, Any]]:
        """The chat requests a run made (the auto-answered endpoint checks left out)."""
        return [r for r in self.requests if r["path"].endswith("/chat/completions")
                and (self.script_checks or _first_user(r["body"]) not in (CHECK_PROMPT, TOOL_PROMPT))]

    def _next(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            spec = self.queue.popleft() if self.queue else self.default
        return spec(request) if callable(spec) else spec

    def start(self) -> "FakeOpenAI":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:   # quiet
                pass

            def do_GET(self) -> None:
                with fake._lock:
                    fake.requests.append({"path": self.path, "method": "GET", "headers": {}, "body": None,
                                          "raw": "", "t": time.monotonic()})
                if self.path.rstrip("/").endswith("/models") and fake.models is not None:
                    status, data = 200, {"object": "list", "data": [{"id": m, "object": "model"} for m in fake.models]}
                else:
                    status, data = 404, {"error": {"message": f"no route {self.path}"}}
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                request = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                           "body": body, "raw": raw.decode("utf-8", "replace"), "t": time.monotonic()}
                with fake._lock:
                    fake.requests.append(request)
                asked = body.get("model") if isinstance(body, dict) else None
                if not self.path.startswith("/v1/") or not self.path.rstrip("/").endswith("/chat/completions"):
                    spec = error(404, f"no route {self.path}")
                elif fake.models is not None and asked not in fake.models:
                    spec = error(404, f"The model `{asked}` does not exist.")
                elif not fake.script_checks and _first_user(body) in (CHECK_PROMPT, TOOL_PROMPT):
                    spec = completion("ok", model=asked or "fake-model") if _first_user(body) == CHECK_PROMPT \
                        else completion(tool_calls=[call("report_number", {"value": 7})])
                else:
                    spec = fake._next(request)
                if spec.get("hang"):
                    time.sleep(spec["hang"])
                if "json" in spec:
                    data = json.dumps(spec["json"]).encode()
                    ctype = "application/json"
                else:
                    b = spec.get("body", b"")
                    data = b.encode() if isinstance(b, str) else b
                    ctype = spec.get("content_type", "text/plain")
                try:
                    self.send_response(spec.get("status", 200))
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (spec.get("headers") or {}).items():
                        self.send_header(k, str(v))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
