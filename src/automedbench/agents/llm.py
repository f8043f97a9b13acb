"""The LLM agent: a chat-completions tool loop over the two harness tools.

    LLMAgent(config).run(system_prompt, context, tools) -> AgentOutcome

Messages: system prompt, then `context.kickoff` as the first user message; every
assistant message and tool result is recorded through `tools.add_message`.

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

from ..llm.client import ChatClient, ChatReply, ProviderError
from ..llm.registry import AgentConfig
from .base import AgentContext, AgentOutcome, RunStopped, ToolBox
from .replies import (
    REJECTED,
    TOOLS,
    ReplyInfo,
    ReplySettings,
    answer_calls,
    note_text_reply,
    parse_reply,
    record_assistant,
)

NUDGE = ("You replied without calling a tool. Continue the task by calling execute_code, or call "
         "submit_results if all outputs are written and verified.")
CONTINUE = ("Your reply was cut off at the output token limit. Continue exactly where you stopped; "
            "if you were writing a tool call, send it again, shorter.")


class LLMAgent:
    def __init__(self, config: AgentConfig, *, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None):
        self.config = config
        self.name = config.name
        self.model = config.model
        self._sleep = sleep
        self._rng = rng

    def check_ready(self) -> None:
        """Raise LLMConfigError naming any env var the entry needs that is unset (before any turn)."""
        self.config.check_ready(role="agent")

    # ---- the loop -----------------------------------------------------------------------
    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        cfg = self.config
        if cfg.limits.wall_time_s:
            own = time.monotonic() + cfg.limits.wall_time_s
            tools.deadline = own if tools.deadline is None else min(tools.deadline, own)

        def on_retry(info: dict[str, Any]) -> None:
            tools.trace.emit("warning", turn=tools.turns, kind="provider_retry",
                             message=f"model request failed ({info['problem'][:200]}); retry "
                                     f"{info['attempt']} in {info['delay_s']:.2f} s", data=info)

        client = ChatClient(cfg, sleep=self._sleep, rng=self._rng, on_retry=on_retry)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt},
                                          {"role": "user", "content": context.kickoff}]
        tools.add_message(messages[1])
        try:
            reason = self._loop(client, messages, tools)
        finally:
            client.close()
        return AgentOutcome(end_reason=reason, model=cfg.model)

    def _limit_reached(self, tools: ToolBox) -> str | None:
        lim = self.config.limits
        if lim.max_turns is not None and tools.turns >= lim.max_turns:
            return "max_turns"
        if lim.max_total_tokens is not None and tools.tokens_in + tools.tokens_out >= lim.max_total_tokens:
            return "max_tokens"
        if lim.max_cost_usd is not None and tools.cost_usd >= lim.max_cost_usd:
            return "max_cost"
        return None

    def _say(self, messages: list, tools: ToolBox, text: str) -> None:
        msg = {"role": "user", "content": text}
        messages.append(msg)
        tools.add_message(msg)

    def _loop(self, client: ChatClient, messages: list[dict[str, Any]], tools: ToolBox) -> str:
        cfg = self.config
        settings = ReplySettings(max_tokens=cfg.max_tokens, tool_result_chars=cfg.tool_result_chars,
                                 tool_results_as=cfg.tool_results_as)
        nudges_left = cfg.nudges
        continuations = 0
        while True:
            reply, ended = self._ask(client, messages, tools)
            if reply is None:
                return ended or "agent_finished"
            parsed = parse_reply(reply.message, tools)
            reasoning = reply.message.get("reasoning_content") or reply.message.get("reasoning")
            messages.append(record_assistant(parsed, tools, reasoning))
            if not parsed.calls:
                note_text_reply(parsed, tools, reply.finish_reason)
                if reply.finish_reason == "length" and not parsed.rejected and continuations < cfg.max_continuations:
                    continuations += 1
                    self._prompt(messages, tools, CONTINUE, "continue_prompt")
                    continue
                if nudges_left > 0:
                    nudges_left -= 1
                    if parsed.rejected:
                        self._prompt(messages, tools, REJECTED.format(why="; ".join(parsed.rejected)), "nudge",
                                     data={"rejected": parsed.rejected})
                    else:
                        self._prompt(messages, tools, NUDGE, "nudge")
                    continue
                return "agent_finished"
            continuations = 0
            nudges_left = cfg.nudges
            info = ReplyInfo(reply.finish_reason, reply.tokens_out, reply.usage_estimated)
            results, end = answer_calls(parsed, tools, settings, info)
            messages.extend(results)
            if end is not None:
                return end

    def _ask(self, client: ChatClient, messages: list[dict[str, Any]],
             tools: ToolBox) -> tuple[ChatReply | None, str | None]:
        """One model turn: (the reply, None), or (None, why the run ends) when a limit is
        reached first or the provider fails (recorded as an infrastructure error)."""
        cfg = self.config
        reason = self._limit_reached(tools)
        if reason:
            tools.trace.emit("warning", turn=tools.turns, kind="limit", message=f"run limit reached: {reason}",
                             data={"tokens": tools.tokens_in + tools.tokens_out, "cost_usd": tools.cost_usd})
            return None, reason
        try:
            tools.begin_turn()
        except RunStopped as stop:
            return None, stop.reason
        try:
            reply = client.complete(messages, tools=TOOLS, deadline=tools.deadline)
        except ProviderError as exc:
            if exc.reason == "wall_time":
                tools.trace.emit("warning", turn=tools.turns, kind="limit", message=exc.message)
                return None, "wall_time"
            tools.trace.emit("error", turn=tools.turns, kind="infrastructure", message=exc.message,
                             data={"reason": exc.reason, "fault": exc.fault, "status": exc.status,
                                   "attempts": exc.attempts, "model": cfg.model, "base_url": cfg.base_url})
            return None, exc.reason
        cost = cfg.pricing.cost(reply.tokens_in, reply.tokens_out, reply.tokens_cached)
        tools.record_model_call(tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, cost_usd=cost,
                                duration_s=reply.duration_s, tokens_cached=reply.tokens_cached,
                                finish_reason=reply.finish_reason, attempts=reply.attempts,
                                usage_estimated=reply.usage_estimated or None)
        return reply, None

    def _prompt(self, messages: list, tools: ToolBox, text: str, kind: str, data: dict | None = None) -> None:
        """A harness message to the model (nudge, continue, rejection), recorded as a trace event."""
        tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind=kind, message=text, data=data)
        self._say(messages, tools, text)
