"""The LLM agent: a policy that asks a chat-completions endpoint for each turn.

    agent = LLMAgent(config)
    message, usage = agent(messages, tools)                      # one turn: the model's reply
    LLMAgent(config).run(system_prompt, context, tools) -> AgentOutcome

It is driven like every policy, through the one loop (agents/turns.py: nudges, length
continuations, limits, the provider-failure path): a run or a sweep cell by the lifecycle,
an RL episode by the environment, and `run` here drives it on a ToolBox of its own.
Its entry states the loop's rules (`rules()`: nudges, continuations, how tool results are
sent, its turn, token and cost limits).

End reasons (AgentOutcome.end_reason):
  submitted             the model called submit_results
  agent_finished        the model stopped with text after `nudges` nudges (no submission)
  max_turns             ToolBox max_turns (task) or config limits.max_turns
  wall_time             ToolBox deadline or config limits.wall_time_s (also while waiting
                        for the model: the HTTP timeout is bounded by the time left)
  max_tokens            config limits.max_total_tokens reached (in + out, all calls)
  max_cost              config limits.max_cost_usd reached
  disqualified          second sandbox violation (from the ToolBox)
  provider_error        non-retryable 4xx / missing key -> trace error kind "infrastructure"
  provider_unavailable  retries exhausted             -> trace error kind "infrastructure"
Token and cost limits are checked at each turn boundary: the call that crosses the limit
completes (its tool calls run), then the run ends before the next model call.
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable

from ..llm.client import ChatClient
from ..llm.registry import AgentConfig
from .base import AgentContext, AgentOutcome, ToolBox
from .replies import ReplySettings
from .turns import CONTINUE, NUDGE, TurnRules, Turns, Usage, drive

__all__ = ["CONTINUE", "NUDGE", "LLMAgent"]


class LLMAgent:
    def __init__(self, config: AgentConfig, *, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None):
        self.config = config
        self.name = config.name
        self.model = config.model
        self._sleep = sleep
        self._rng = rng
        self._client: ChatClient | None = None
        self._turns: Turns | None = None

    def check_ready(self) -> None:
        """Raise LLMConfigError naming any env var the entry needs that is unset (before any turn)."""
        self.config.check_ready(role="agent")

    def rules(self) -> TurnRules:
        """The loop's rules as the entry states them (docs/llm.md, the registry's fields)."""
        cfg = self.config
        return TurnRules(nudges=cfg.nudges, max_continuations=cfg.max_continuations,
                         reply=ReplySettings(max_tokens=cfg.max_tokens, tool_result_chars=cfg.tool_result_chars,
                                             tool_results_as=cfg.tool_results_as),
                         max_turns=cfg.limits.max_turns, max_total_tokens=cfg.limits.max_total_tokens,
                         max_cost_usd=cfg.limits.max_cost_usd)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_client": None, "_turns": None}   # an open HTTP client stays home

    # ---- a policy --------------------------------------------------------------------------
    def start(self, turns: Turns) -> None:
        """The run it plays: waits are bounded by its wall time, retries are recorded in its trace."""
        self.close()
        self._turns = turns

        def on_retry(info: dict[str, Any]) -> None:
            turns.warn("provider_retry", f"model request failed ({info['problem'][:200]}); retry "
                                         f"{info['attempt']} in {info['delay_s']:.2f} s", info)
        self._client = ChatClient(self.config, sleep=self._sleep, rng=self._rng, on_retry=on_retry)

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> tuple[dict[str, Any], Usage]:
        """The model's reply to the conversation so far, and what it cost. Raises ProviderError."""
        if self._client is None:
            self._client = ChatClient(self.config, sleep=self._sleep, rng=self._rng)
        deadline = self._turns.deadline if self._turns is not None else None
        reply = self._client.complete(messages, tools=tools, deadline=deadline)
        cost = self.config.pricing.cost(reply.tokens_in, reply.tokens_out, reply.tokens_cached)
        return reply.message, Usage(tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                                    tokens_cached=reply.tokens_cached, cost_usd=cost, duration_s=reply.duration_s,
                                    finish_reason=reply.finish_reason, attempts=reply.attempts,
                                    usage_estimated=reply.usage_estimated)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client, self._turns = None, None

    # ---- the Agent interface: driven on a ToolBox of its own --------------------------------
    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        cfg = self.config
        if cfg.limits.wall_time_s:
            own = time.monotonic() + cfg.limits.wall_time_s
            tools.deadline = own if tools.deadline is None else min(tools.deadline, own)
        end = drive(Turns(tools, system_prompt, context.kickoff, self.rules()), self)
        return AgentOutcome(end_reason=end, model=cfg.model)
