"""Check an endpoint entry before spending time on it, and explain endpoint errors.

    check_endpoint(config) -> EndpointCheck     one tiny request + one tool-call request
    explain(base_url, status, body, ...)       a hint a person can act on
    preflight(configs)                         raise EndpointConfigError on a configuration error

docs/llm.md ("Checking an endpoint") states the rules:
- a refused connection, HTTP 401/403/404 and "unknown model" are **configuration errors**:
  retrying does not help, so `automedbench run` and `sweep` stop before the first cell
  (exit 2) with the URL, the status, a body excerpt and a hint;
- anything else (5xx, timeouts, 429) may be transient: reported, never a reason to stop.
The requests are plain HTTP (httpx, which the openai SDK already depends on) so the exact
status and body are seen; the key is read from the environment here, in the harness
process, and redacted from every message.
"""
from __future__ import annotations

import functools
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from .registry import AgentConfig

if TYPE_CHECKING:
    import ssl

BODY_EXCERPT = 300
_UNKNOWN_MODEL = re.compile(r"model.{0,80}(does not exist|not found|unknown|not served|no such|invalid model)|"
                            r"(unknown|invalid|no such) model|model_not_found", re.IGNORECASE | re.DOTALL)
_CHECK_TOOL = {"type": "function", "function": {
    "name": "report_number", "description": "Report a number.",
    "parameters": {"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]}}}
# the first user message of a check request: a test server can tell a check from a run by it
CHECK_PROMPT = "automedbench endpoint check: reply with the single word ok."
TOOL_PROMPT = "automedbench endpoint check: call the function report_number with value 7."


class EndpointConfigError(UserError, ValueError):
    """An endpoint cannot serve this entry (refused, 401/403/404, unknown model): a user error."""


@dataclass
class EndpointCheck:
    name: str
    base_url: str
    model: str
    reachable: bool = False
    ok: bool = False                   # the tiny request got a usable answer
    status: int | None = None
    latency_s: float | None = None
    answered_model: str | None = None  # the `model` field of the reply
    tool_calls: bool | None = None     # the tool-call request got a native tool call
    served_models: list[str] | None = None
    error: str | None = None           # one line: URL, status, body excerpt
    hint: str | None = None
    config_error: bool = False
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def message(self) -> str:
        return f"agent {self.name!r}: {self.error}" + (f" — {self.hint}" if self.hint else "")


def _excerpt(text: str, secrets: list[str]) -> str:
    text = " ".join((text or "").split())
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "***")
    return text[:BODY_EXCERPT] + ("…" if len(text) > BODY_EXCERPT else "")


CHAT_SUFFIX = "/chat/completions"


def explain(base_url: str, model: str, *, status: int | None = None, body: str = "",
            connect_error: str | None = None, served: list[str] | None = None,
            api_key_env: str | None = None) -> tuple[str, bool]:
    """(hint, is_configuration_error) for one failed request (module doc)."""
    if connect_error is not None:
        low = connect_error.lower()
        if "refused" in low:
            return f"connection refused: is the server running and listening at {base_url}?", True
        if "name or service" in low or "nodename" in low or "resolve" in low:
            return f"the host in base_url {base_url} does not resolve: check its spelling", True
        if "timed out" in low or "timeout" in low:
            return "no answer in time: the server is busy or slow, or base_url points at the wrong port", False
        return f"cannot connect to {base_url}: check base_url and that the server is up", False
    if status is None:
        return "", False
    if base_url.rstrip("/").endswith(CHAT_SUFFIX):   # the client appends it: the URL has it twice
        return (f"base_url {base_url} ends in {CHAT_SUFFIX}, which the client adds itself: set base_url to "
                f"{base_url.rstrip('/')[: -len(CHAT_SUFFIX)]}"), True
    if _UNKNOWN_MODEL.search(body or "") and status in (400, 404, 422):
        offered = f"; the server serves: {', '.join(served[:10])}" if served else ""
        return f"the server does not serve model {model!r}{offered} (set `model:` to one of them)", True
    if status in (401, 403):
        key = f"check that {api_key_env} holds a valid key for this endpoint" if api_key_env else \
            "the entry sends no key (api_key_env is unset): name the variable holding one"
        return f"the key was refused (HTTP {status}): {key}", True
    if status == 404:
        tail = "" if base_url.rstrip("/").endswith("/v1") else " (it does not)"
        return f"no such route: does base_url end in /v1{tail}? it is {base_url}", True
    if status == 429:
        return "rate limited: retried with backoff; lower --workers or raise the provider's limit", False
    if status >= 500:
        return "the server failed: a transient outage or a server bug (retried)", False
    return "the server rejected the request: see the body excerpt", False


def tls_context() -> ssl.SSLContext:
    """The TLS context every request of this process verifies with: httpx's own default
    (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set), built once. Each httpx
    client used to build its own: reading and parsing the CA bundle is ~40 ms of CPU, paid by
    every run, judge and endpoint check."""
    return _tls_context(os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))


@functools.lru_cache(maxsize=4)
def _tls_context(cert_file: str, cert_dir: str) -> ssl.SSLContext:
    import httpx
    return httpx.create_ssl_context(trust_env=True)   # reads the same two variables


def served_models(config: AgentConfig, timeout_s: float = 10.0) -> list[str] | None:
    """The model ids from GET {base_url}/models, or None when the server does not list them."""
    import httpx
    try:
        r = httpx.get(f"{config.base_url}/models", headers=_headers(config), timeout=timeout_s,
                      verify=tls_context())
        data = r.json().get("data") if r.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError, UserError):
        return None
    if not isinstance(data, list):
        return None
    return [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]


def _headers(config: AgentConfig) -> dict[str, str]:
    return {"Authorization": f"Bearer {config.api_key()}", **config.resolved_headers()}


def _request_body(config: AgentConfig, prompt: str, tools: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": config.model, "messages": [{"role": "user", "content": prompt}]}
    if config.max_tokens is not None:
        body["max_tokens"] = 64
    if config.temperature is not None:
        body["temperature"] = config.temperature
    if tools:
        body["tools"] = [_CHECK_TOOL]
        body["tool_choice"] = "auto"
    body.update(config.extra_body or {})
    return body


def _post(config: AgentConfig, body: dict[str, Any], timeout_s: float) -> tuple[int | None, str, str | None, float]:
    """(status, body text, connection error, seconds)."""
    import httpx
    t0 = time.monotonic()
    try:
        r = httpx.post(f"{config.base_url}/chat/completions", json=body, headers=_headers(config), timeout=timeout_s,
                       verify=tls_context())
        return r.status_code, r.text, None, time.monotonic() - t0
    except httpx.TimeoutException as exc:
        return None, "", f"timed out after {timeout_s:.0f} s ({type(exc).__name__})", time.monotonic() - t0
    except httpx.HTTPError as exc:
        cause = exc.__cause__ or exc.__context__
        return None, "", f"{exc}" + (f" ({cause})" if cause and str(cause) not in str(exc) else ""), \
            time.monotonic() - t0


def check_endpoint(config: AgentConfig, *, tool_call: bool = True, timeout_s: float | None = None) -> EndpointCheck:
    """One tiny request (reachability, model, latency), then one tool-call request (native
    tool calling). Never raises for what the endpoint answers; a missing key is a user error."""
    config.check_ready(role="agent")
    timeout = min(config.timeout_s, timeout_s or 60.0)
    secrets = config.secrets()
    res = EndpointCheck(config.name, config.base_url, config.model)
    url = f"{config.base_url}/chat/completions"
    status, text, conn, took = _post(config, _request_body(config, CHECK_PROMPT, tools=False), timeout)
    res.status, res.latency_s = status, round(took, 3)
    if conn is not None:
        res.error = f"POST {url}: {conn}"
        res.hint, res.config_error = explain(config.base_url, config.model, connect_error=conn)
        return res
    res.reachable = True
    parsed: Any = None
    try:
        parsed = json.loads(text) if text.strip() else None
    except ValueError:
        parsed = None
    if status != 200 or not isinstance(parsed, dict) or not parsed.get("choices"):
        served = served_models(config, timeout) if status in (400, 404, 422) else None
        res.served_models = served
        res.error = f"POST {url}: HTTP {status}: {_excerpt(text, secrets) or '(empty body)'}"
        res.hint, res.config_error = explain(config.base_url, config.model, status=status, body=text,
                                             served=served, api_key_env=config.api_key_env)
        if status == 200:
            res.hint = "the answer has no `choices`: is this an OpenAI-compatible /v1 endpoint?"
        return res
    res.ok = True
    res.answered_model = parsed.get("model")
    if not tool_call:
        return res
    status, text, conn, _ = _post(config, _request_body(config, TOOL_PROMPT, tools=True), timeout)
    try:
        msg = json.loads(text)["choices"][0]["message"] if status == 200 else None
    except (ValueError, KeyError, IndexError, TypeError):
        msg = None
    if msg is None:
        res.tool_calls = False
        res.notes.append(f"the tool-call request failed ({conn or f'HTTP {status}: ' + _excerpt(text, secrets)}); "
                         "does the server enable tool calling (vLLM: --enable-auto-tool-choice "
                         "--tool-call-parser ...)?")
    else:
        res.tool_calls = bool(msg.get("tool_calls"))
        if not res.tool_calls:
            res.notes.append("the model answered the tool-call request with text: the agent loop falls back to "
                             "parsing tool calls written as text, which works less reliably")
    return res


def preflight(configs: list[AgentConfig]) -> list[EndpointCheck]:
    """Check each entry once (the tiny request only); raise EndpointConfigError naming every
    entry with a configuration error. Transient failures are returned, not raised."""
    checks = [check_endpoint(c, tool_call=False) for c in configs]
    bad = [c for c in checks if c.config_error]
    if bad:
        raise EndpointConfigError("; ".join(c.message() for c in bad)
                                  + f" (check with `automedbench agents check {' '.join(c.name for c in bad)}`)")
    return checks


def provider_hint(config: AgentConfig, status: int | None, detail: str, connect_error: str | None = None) -> str:
    """' — hint' for a ProviderError message of the agent loop or judge (never empty-handed)."""
    hint, _ = explain(config.base_url, config.model, status=status, body=detail, connect_error=connect_error,
                      api_key_env=config.api_key_env)
    return f" — {hint}" if hint else ""
