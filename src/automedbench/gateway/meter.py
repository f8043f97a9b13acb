"""One run's model requests through the gateway, counted and limited (docs/agents.md "CLI agents
behind the gateway").

`ChatMeter` answers a chat-completions request from inside the sandbox: the run's limits are
checked first (the caller's `at_limit`, our loop's own check: agents/turns.py), then the request's
messages and tools go to the entry's endpoint through our `ChatClient` (its retries, the run's
deadline, the key read in the harness only); the reply's tokens are priced with the entry's
`pricing` and handed to `record`, which counts them on the run as our loop counts its own. What
the agent asked for besides messages and tools (model, temperature, max_tokens...) is not sent:
the entry's settings govern, as for every kind (docs/agents.md).

A run that has ended (a limit, a disqualification, a provider failure) answers every later
request with 401 and the reason: an authentication error is the one every CLI agent we know stops
on at once instead of retrying.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..llm.client import ChatClient, ChatReply, ProviderError
from ..llm.registry import AgentConfig

ENDED_STATUS = 401


class GatewayRefusal(Exception):
    """Raised by a `before` hook to answer the request with `reason` and end the run."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass
class Metered:
    """One answered request: the reply and its price."""
    reply: ChatReply
    cost_usd: float


class ChatMeter:
    """The gateway's `on_chat` for one run. Hooks (all called under one lock, one request at a
    time, so the run's counters change in the order the requests came):

    - `at_limit()`: the end reason if a limit ends the run now, else None;
    - `before(request)`: the harness's work at the turn boundary (the calls the agent made since
      the last reply); may edit the request's messages, or raise GatewayRefusal; any other
      exception is the harness's fault: kept in `fault`, and the run ends (`harness_error`);
    - `begin_turn()`: counts the turn (raises when the task's turns are spent);
    - `record(metered)`: counts tokens and cost on the run;
    - `failed(error)`: a provider failure, recorded by the caller.
    """

    def __init__(self, config: AgentConfig, client: ChatClient, *, at_limit: Callable[[], str | None],
                 before: Callable[[dict[str, Any]], None], begin_turn: Callable[[], None],
                 record: Callable[[Metered], None], failed: Callable[[ProviderError], None],
                 deadline: Callable[[], float | None]):
        self.config = config
        self.client = client
        self.at_limit, self.before, self.begin_turn = at_limit, before, begin_turn
        self.record, self.failed, self.deadline = record, failed, deadline
        self.ended: str | None = None
        self.fault: Exception | None = None   # the harness's own failure at a boundary (never the agent's)
        self.requests = 0
        self.overhead_s = 0.0        # time spent in the gateway besides the upstream request
        self._lock = threading.Lock()

    def end(self, reason: str) -> None:
        with self._lock:
            self.ended = self.ended or reason

    def __call__(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            t0 = time.perf_counter()
            self.requests += 1
            upstream = 0.0
            try:
                if self.ended is None:
                    try:
                        self.before(request)
                    except GatewayRefusal as refusal:
                        self.ended = refusal.reason
                    except Exception as exc:   # noqa: BLE001 -- ours: the caller ends the run infra_error
                        self.fault, self.ended = exc, "harness_error"
                if self.ended is None:
                    self.ended = self.at_limit()
                if self.ended is not None:
                    return ENDED_STATUS, _ended(self.ended)
                try:
                    self.begin_turn()
                except Exception as exc:   # noqa: BLE001 -- the ToolBox's RunStopped (turns, time)
                    self.ended = str(getattr(exc, "reason", "") or exc)
                    return ENDED_STATUS, _ended(self.ended)
                t1 = time.perf_counter()
                try:
                    reply = self.client.complete(request["messages"], tools=request.get("tools") or None,
                                                 deadline=self.deadline())
                except ProviderError as exc:
                    upstream = time.perf_counter() - t1
                    self.ended = exc.reason
                    self.failed(exc)
                    return 502, {"error": {"message": f"the model endpoint failed: {exc.message}",
                                           "type": "upstream_error", "reason": exc.reason}}
                upstream = time.perf_counter() - t1
                cost = self.config.pricing.cost(reply.tokens_in, reply.tokens_out, reply.tokens_cached)
                self.record(Metered(reply, cost))
                return 200, _body(reply, self.config.model, cost)
            finally:
                self.overhead_s += time.perf_counter() - t0 - upstream


def _ended(reason: str) -> dict[str, Any]:
    return {"error": {"message": f"AutoMedBench ended this run ({reason}); stop now.", "type": "run_ended",
                      "code": reason}}


def _body(reply: ChatReply, model: str, cost: float) -> dict[str, Any]:
    """The upstream's reply as the agent gets it: its choices, and usage as our counts read it,
    with the harness's price of the request as `usage.cost` (an agent that tracks cost sees ours)."""
    body = dict(reply.body)
    usage: dict[str, Any] = {"prompt_tokens": reply.tokens_in, "completion_tokens": reply.tokens_out,
             "total_tokens": reply.tokens_in + reply.tokens_out, "cost": cost}
    if reply.tokens_cached:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.tokens_cached}
    body.update(usage=usage, model=body.get("model") or model)
    body.setdefault("object", "chat.completion")
    return body


__all__ = ["ChatMeter", "ENDED_STATUS", "GatewayRefusal", "Metered"]
