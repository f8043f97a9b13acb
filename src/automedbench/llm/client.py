"""One robust chat-completions request against any OpenAI-compatible endpoint.

Used by the LLM agent and the LLM judge. The official `openai` SDK does the HTTP
(`max_retries=0`: retries are ours, so they are bounded by the run's wall time and
recorded). Retry policy:
  - 429, 408, 409 and 5xx, connection errors, timeouts, empty bodies, non-JSON bodies,
    bodies without `choices` -> retry with exponential backoff + jitter, honouring
    `Retry-After` / `retry-after-ms` (capped by `retry.retry_after_max_s`);
  - any other 4xx -> no retry: `ProviderError("provider_error")`;
  - a 5xx whose body says the *request* is invalid (a validation error: some servers,
    e.g. llama-cpp-python, answer 500 to a message shape they reject) -> retried once
    (it might be a fluke), then `ProviderError("provider_error", fault="request_rejected")`:
    an interop fault between harness and server, not an outage and not the agent's;
  - retries exhausted -> `ProviderError("provider_unavailable")`;
  - the run's deadline reached while waiting -> `ProviderError("wall_time")`.
The API key is read from the environment when the client opens, never stored in config.
"""
from __future__ import annotations

import email.utils
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .check import provider_hint, tls_context
from .registry import AgentConfig

if TYPE_CHECKING:   # the SDK is imported when a client opens (an optional extra)
    from openai import OpenAI

RETRY_STATUS = {408, 409, 429}

# Words in a 5xx body that mean "your request is malformed", not "I am down" (pydantic /
# FastAPI / jinja / OpenAI-style validation messages). Such a request is retried once only.
INVALID_REQUEST_5XX = re.compile(
    r"validation error|validationerror|invalid[_ ]request|invalid (?:value|type|message|argument|parameter)|"
    r"input should be|field required|is not (?:a )?valid|unprocessable|bad request|"
    r"unsupported (?:value|parameter|message)|must be (?:a |of type )?(?:string|str|object|array)",
    re.IGNORECASE)
INVALID_5XX_RETRIES = 1


class ProviderError(Exception):
    """The provider could not give a usable answer. `reason` is a run end reason:
    provider_error (non-retryable 4xx / config), provider_unavailable (retries exhausted),
    wall_time (deadline reached while waiting)."""

    def __init__(self, reason: str, message: str, *, status: int | None = None, attempts: int = 0,
                 fault: str | None = None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.status = status
        self.attempts = attempts
        # what kind of fault: "outage" (retries exhausted), "request_rejected" (the endpoint
        # says our request is invalid: an interop fault), "config" (missing key), "http_4xx"
        self.fault = fault or {"provider_unavailable": "outage"}.get(reason)


@dataclass
class ChatReply:
    body: dict[str, Any]
    message: dict[str, Any]
    finish_reason: str | None
    tokens_in: int
    tokens_out: int
    tokens_cached: int
    usage_estimated: bool
    duration_s: float
    attempts: int
    retries: list[dict[str, Any]] = field(default_factory=list)


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with 'equal jitter': d/2 + U(0, d/2), d = min(cap, base·2^(attempt-1))."""
    d = min(cap, base * (2 ** max(0, attempt - 1)))
    r = (rng or random).random()
    return d / 2 + r * d / 2


def parse_retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds from `retry-after-ms`, `Retry-After` (seconds or HTTP date); None if absent/bad."""
    if headers is None:
        return None
    get = headers.get
    ms = get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    ra = get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(ra).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (now if now is not None else time.time()))


def redact(text: str, secrets: list[str]) -> str:
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "***")
    return text


def _usage(body: dict[str, Any], request_chars: int, message: dict[str, Any]) -> tuple[int, int, int, bool]:
    u = body.get("usage") or {}
    if not isinstance(u, dict) or u.get("prompt_tokens") is None:
        out_chars = len(message.get("content") or "") + len(json.dumps(message.get("tool_calls") or []))
        return request_chars // 4, max(1, out_chars // 4), 0, True
    details = u.get("prompt_tokens_details") or {}
    cached = (details.get("cached_tokens") if isinstance(details, dict) else None) \
        or u.get("cached_tokens") or u.get("prompt_cache_hit_tokens") or 0
    return int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0), int(cached or 0), False


class ChatClient:
    def __init__(self, config: AgentConfig, *, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None,
                 on_retry: Callable[[dict[str, Any]], None] | None = None):
        self.config = config
        self.sleep = sleep
        self.rng = rng
        self.on_retry = on_retry
        self._client: OpenAI | None = None
        self._secrets: list[str] = []

    def open(self) -> OpenAI:
        if self._client is None:
            from openai import DefaultHttpxClient, OpenAI
            key = self.config.api_key()          # read now, in the harness process only
            self._secrets = self.config.secrets()
            self._client = OpenAI(base_url=self.config.base_url, api_key=key, max_retries=0,
                                  timeout=self.config.timeout_s,
                                  default_headers=self.config.resolved_headers() or None,
                                  http_client=DefaultHttpxClient(verify=tls_context()))
        return self._client

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            finally:
                self._client = None

    def redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def complete(self, messages: list[dict[str, Any]], *, tools: list[dict] | None = None,
                 response_format: dict | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, deadline: float | None = None) -> ChatReply:
        """One chat completion, retried on outages (backoff, Retry-After) within `deadline`.
        Raises ProviderError: provider_error (configuration, a 4xx, a request the server keeps
        rejecting), provider_unavailable (retries spent) or wall_time (the run's deadline)."""
        from openai import APIConnectionError, APIStatusError, APITimeoutError

        try:
            client = self.open()
        except Exception as exc:   # missing key env var, bad header env: configuration fault
            raise ProviderError("provider_error", str(exc), fault="config") from None
        kwargs = self._request(messages, tools, response_format, temperature, max_tokens)
        request_chars = len(json.dumps(messages, default=str))
        retries: list[dict[str, Any]] = []
        attempt = 0
        invalid_5xx = 0
        start = time.monotonic()
        while True:
            timeout = self._timeout(deadline, attempt)
            retry_after: float | None = None
            status: int | None = None
            try:
                raw = client.chat.completions.with_raw_response.create(**kwargs, timeout=timeout)
                status = raw.status_code
                body, problem = _read_body(raw.text)
                if body is not None:
                    return _reply(body, request_chars, start, attempt, retries)
            except APIStatusError as exc:
                status = exc.status_code
                invalid_5xx += self._refuse_status(exc, invalid_5xx, attempt)
                problem = f"HTTP {status}: {_response_text(exc)}"
                retry_after = parse_retry_after(exc.response.headers)
            except APITimeoutError:
                if deadline is not None and time.monotonic() >= deadline - 0.05:
                    raise ProviderError("wall_time", "run deadline reached while waiting for the model",
                                        attempts=attempt + 1) from None
                problem = f"request timed out after {timeout:.1f} s"
            except APIConnectionError as exc:
                cause = exc.__cause__ or exc.__context__   # what the connection error hides (refused, DNS...)
                problem = f"connection error: {exc}" + (f" ({cause})" if cause and str(cause) not in str(exc) else "")
            attempt += 1
            delay = self._retry_delay(attempt, retry_after, deadline, problem, status)
            info = {"attempt": attempt, "status": status, "delay_s": round(delay, 4),
                    "retry_after": retry_after, "problem": self.redact(problem)[:500]}
            retries.append(info)
            if self.on_retry:
                self.on_retry(info)
            self.sleep(delay)

    def _request(self, messages: list[dict[str, Any]], tools: list[dict] | None, response_format: dict | None,
                 temperature: float | None, max_tokens: int | None) -> dict[str, Any]:
        """The create() arguments: the call's own values, else the endpoint's configuration."""
        cfg = self.config
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = "auto"
        t = cfg.temperature if temperature is None else temperature
        if t is not None:
            kwargs["temperature"] = t
        mt = max_tokens if max_tokens is not None else cfg.max_tokens
        if mt is not None:
            kwargs["max_tokens"] = mt
        if response_format is not None:
            kwargs["response_format"] = response_format
        if cfg.extra_body:
            kwargs["extra_body"] = dict(cfg.extra_body)
        return kwargs

    def _timeout(self, deadline: float | None, attempt: int) -> float:
        """This attempt's timeout: the endpoint's, cut to what is left of the run's deadline."""
        if deadline is None:
            return self.config.timeout_s
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProviderError("wall_time", "run deadline reached before the model answered", attempts=attempt)
        return min(self.config.timeout_s, remaining)

    def _refuse_status(self, exc: Any, invalid_5xx: int, attempt: int) -> int:
        """Raise for an HTTP error not worth retrying: a 4xx (other than the retried ones), or a
        5xx that keeps rejecting the request as invalid (an interop fault, not an outage).
        Returns 1 when this error was such a rejection (counted by the caller), else 0."""
        status, detail = exc.status_code, _response_text(exc)
        rejected = 0
        if status >= 500 and INVALID_REQUEST_5XX.search(detail):
            rejected = 1
            if invalid_5xx + 1 > INVALID_5XX_RETRIES:
                raise ProviderError(
                    "provider_error",
                    self.redact(f"HTTP {status} rejecting the request as invalid "
                                f"({invalid_5xx + 1} times; an interop fault, not an outage): {detail}"),
                    status=status, attempts=attempt + 1, fault="request_rejected") from None
        if not (status in RETRY_STATUS or status >= 500):
            # URL, status, body excerpt and a hint a person can act on (docs/llm.md)
            raise ProviderError("provider_error", self.redact(
                f"POST {self.config.base_url}/chat/completions: HTTP {status} (not retried): {detail[:300]}"
                + provider_hint(self.config, status, detail)), status=status, attempts=attempt + 1,
                fault="http_4xx") from None
        return rejected

    def _retry_delay(self, attempt: int, retry_after: float | None, deadline: float | None, problem: str,
                     status: int | None) -> float:
        """Seconds to wait before the next attempt; raises when retries are spent or the wait
        would pass the run's deadline."""
        cfg = self.config
        if attempt > cfg.retry.max_retries:
            hint = provider_hint(cfg, status, problem, problem if status is None and "connection" in problem else None)
            raise ProviderError("provider_unavailable",
                                self.redact(f"POST {cfg.base_url}/chat/completions: gave up after {attempt} "
                                            f"attempts; last: {problem}{hint}"),
                                status=status, attempts=attempt)
        if retry_after is not None:
            delay = min(retry_after, cfg.retry.retry_after_max_s)
        else:
            delay = backoff_delay(attempt, cfg.retry.backoff_base_s, cfg.retry.backoff_max_s, self.rng)
        if deadline is not None and time.monotonic() + delay >= deadline:
            raise ProviderError("wall_time", self.redact(f"run deadline reached while backing off ({problem})"),
                                status=status, attempts=attempt)
        return delay


def _response_text(exc: Any) -> str:
    """The first 500 characters of an HTTP error's body ('' when it cannot be read)."""
    try:
        return str(exc.response.text)[:500]
    except Exception:  # noqa: BLE001 - a body that cannot be read is just not shown
        return ""


def _read_body(text: str) -> tuple[dict[str, Any] | None, str]:
    """(the completion body, '') when it has a first choice, else (None, what is wrong)."""
    try:
        body = json.loads(text) if text and text.strip() else None
    except json.JSONDecodeError:
        return None, f"non-JSON response body ({len(text)} chars): {text[:200]!r}"
    if body is None:
        return None, "empty response body"
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list) \
            or not body["choices"] or not isinstance(body["choices"][0], dict):
        err = body.get("error") if isinstance(body, dict) else None
        return None, f"response without choices{': ' + str(err)[:300] if err else ''}"
    return body, ""


def _reply(body: dict[str, Any], request_chars: int, start: float, attempt: int,
           retries: list[dict[str, Any]]) -> ChatReply:
    choice = body["choices"][0]
    message = choice.get("message") or {}
    if not isinstance(message, dict):
        message = {}
    ti, to, tc, est = _usage(body, request_chars, message)
    return ChatReply(body=body, message=message, finish_reason=choice.get("finish_reason"),
                     tokens_in=ti, tokens_out=to, tokens_cached=tc, usage_estimated=est,
                     duration_s=time.monotonic() - start, attempts=attempt + 1, retries=retries)
