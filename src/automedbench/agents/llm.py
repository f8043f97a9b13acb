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

import json
import random
import re
import time
from typing import Any, Callable

from ..llm.client import ChatClient, ProviderError
from ..llm.registry import AgentConfig
from .base import AgentContext, AgentOutcome, RunStopped, ToolBox, clip_middle
from .toolcall_parse import (
    TRUNCATION_REPAIR,
    Repaired,
    extract_fenced_json_calls,
    extract_text_tool_calls,
    repair_arguments,
    tool_call_like,
)

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "execute_code",
        "description": ("Run Python or bash code in the sandbox (the working directory is your workspace). "
                        "Returns exit code, stdout and stderr. Start the code with a stage tag such as "
                        "'# S3' to say which workflow stage it belongs to."),
        "parameters": {"type": "object", "properties": {
            "language": {"type": "string", "enum": ["python", "bash"]},
            "code": {"type": "string", "description": "the complete program or script to run"}},
            "required": ["language", "code"]}}},
    {"type": "function", "function": {
        "name": "submit_results",
        "description": "Call once when all outputs are written and verified. Ends the run.",
        "parameters": {"type": "object", "properties": {}}}},
]

TOOL_NAMES = frozenset(t["function"]["name"] for t in TOOLS)
NUDGE = ("You replied without calling a tool. Continue the task by calling execute_code, or call "
         "submit_results if all outputs are written and verified.")
CONTINUE = ("Your reply was cut off at the output token limit. Continue exactly where you stopped; "
            "if you were writing a tool call, send it again, shorter.")
REJECTED = ("Your reply contains what looks like a tool call written as text, and it was NOT executed: "
            "{why}. Call the tools through the tool-calling interface (execute_code with 'language' and "
            "'code' as JSON string arguments, or submit_results).")
TRUNCATED = ("error: this tool call was cut off at the output token limit ({detail}), so it was NOT "
             "executed. Send it again as smaller pieces: split long code into several execute_code calls "
             "(e.g. write a module to a file in parts, then run it).")
EXCERPT = 600
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_LANG_ALIASES = {"python": "python", "python3": "python", "py": "python",
                 "bash": "bash", "sh": "bash", "shell": "bash", "zsh": "bash"}


def _excerpt(text: str | None, n: int = EXCERPT) -> str:
    text = (text or "").strip()
    return text if len(text) <= n else text[: n // 2] + " … " + text[-n // 2:]


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):   # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


class _Call:
    def __init__(self, id: str, name: str, raw: Any, parsed: Repaired, form: str):
        self.id, self.name, self.raw, self.parsed, self.form = id, name, raw, parsed, form

    def wire(self) -> dict[str, Any]:
        args = json.dumps(self.parsed.value) if self.parsed.value is not None else \
            (self.raw if isinstance(self.raw, str) else json.dumps(self.raw))
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": args}}


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
        nudges_left = cfg.nudges
        continuations = 0
        while True:
            reason = self._limit_reached(tools)
            if reason:
                tools.trace.emit("warning", turn=tools.turns, kind="limit", message=f"run limit reached: {reason}",
                                 data={"tokens": tools.tokens_in + tools.tokens_out, "cost_usd": tools.cost_usd})
                return reason
            try:
                tools.begin_turn()
            except RunStopped as stop:
                return stop.reason
            try:
                reply = client.complete(messages, tools=TOOLS, deadline=tools.deadline)
            except ProviderError as exc:
                if exc.reason == "wall_time":
                    tools.trace.emit("warning", turn=tools.turns, kind="limit", message=exc.message)
                    return "wall_time"
                tools.trace.emit("error", turn=tools.turns, kind="infrastructure", message=exc.message,
                                 data={"reason": exc.reason, "fault": exc.fault, "status": exc.status,
                                       "attempts": exc.attempts, "model": cfg.model, "base_url": cfg.base_url})
                return exc.reason
            cost = cfg.pricing.cost(reply.tokens_in, reply.tokens_out, reply.tokens_cached)
            tools.record_model_call(tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, cost_usd=cost,
                                    duration_s=reply.duration_s, tokens_cached=reply.tokens_cached,
                                    finish_reason=reply.finish_reason, attempts=reply.attempts,
                                    usage_estimated=reply.usage_estimated or None)
            calls, content, rejected = self._calls(reply.message, tools)
            # content "" (never null) next to tool calls: llama-cpp-python answers HTTP 500 to
            # `content: null`, and every OpenAI-compatible server accepts ""
            assistant: dict[str, Any] = {"role": "assistant", "content": content or ""}
            if calls:
                assistant["tool_calls"] = [c.wire() for c in calls]
            messages.append(assistant)
            reasoning = reply.message.get("reasoning_content") or reply.message.get("reasoning")
            tools.add_message({**assistant, "reasoning_content": reasoning} if reasoning else assistant)

            if not calls:
                cut = reply.finish_reason == "length"
                tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="text_reply",
                                 message=_excerpt(content) or "(empty reply)",
                                 data={"finish_reason": reply.finish_reason, "chars": len(content or ""),
                                       "tool_call_like": rejected or None})
                if cut and not rejected and continuations < cfg.max_continuations:
                    continuations += 1
                    self._prompt(messages, tools, CONTINUE, "continue_prompt")
                    continue
                if nudges_left > 0:
                    nudges_left -= 1
                    if rejected:
                        self._prompt(messages, tools, REJECTED.format(why="; ".join(rejected)), "nudge",
                                     data={"rejected": rejected})
                    else:
                        self._prompt(messages, tools, NUDGE, "nudge")
                    continue
                return "agent_finished"
            continuations = 0
            nudges_left = cfg.nudges
            cut_at_limit = self._hit_token_limit(reply)
            end: str | None = None
            results: list[tuple[_Call, str]] = []
            for i, call in enumerate(calls):
                if end is not None:
                    text = f"not executed: the run ended ({end}) before this call."
                else:
                    # a reply cut at the token limit cuts its LAST call; any call whose JSON
                    # needed closing brackets was cut too
                    limit_hit = cut_at_limit if i == len(calls) - 1 else None
                    text, end = self._dispatch(call, tools, reply, limit_hit)
                results.append((call, clip_middle(text, cfg.tool_result_chars)))
            for msg in self._result_messages(results):
                messages.append(msg)
                tools.add_message(msg)
            if end is not None:
                return end

    def _result_messages(self, results: list[tuple[_Call, str]]) -> list[dict[str, Any]]:
        """Tool results as `role: tool` messages, or - for servers whose chat format drops
        them (llama-cpp-python's chatml-function-calling) - as one user message."""
        if self.config.tool_results_as == "tool":
            return [{"role": "tool", "tool_call_id": c.id, "content": text} for c, text in results]
        body = "\n\n".join(f"[result of {c.name} call {c.id}]\n{text}" for c, text in results)
        return [{"role": "user", "content": "Tool results:\n\n" + body}]

    def _prompt(self, messages: list, tools: ToolBox, text: str, kind: str, data: dict | None = None) -> None:
        """A harness message to the model (nudge, continue, rejection), recorded as a trace event."""
        tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind=kind, message=text, data=data)
        self._say(messages, tools, text)

    def _hit_token_limit(self, reply: Any) -> str | None:
        """Why this reply ended at the output token limit, or None. Some servers
        (llama-cpp-python) say finish_reason "tool_calls" even then, so the completion
        token count is checked against max_tokens too."""
        if reply.finish_reason == "length":
            return 'finish_reason "length"'
        mt = self.config.max_tokens
        if mt is not None and not reply.usage_estimated and reply.tokens_out >= mt:
            return f"completion tokens {reply.tokens_out} = max_tokens {mt}"
        return None

    # ---- tool calls -------------------------------------------------------------------
    def _calls(self, message: dict[str, Any], tools: ToolBox) -> tuple[list[_Call], str | None, list[str]]:
        """(calls to dispatch, the text to keep, reasons for rejected tool-call-like text)."""
        content = _text(message.get("content"))
        calls: list[_Call] = []
        for i, tc in enumerate(message.get("tool_calls") or []):
            if not isinstance(tc, dict):
                continue
            fn = tc.get("function") or {}
            raw = fn.get("arguments")
            calls.append(_Call(tc.get("id") or f"call_{tools.turns}_{i}", str(fn.get("name") or ""),
                               raw, repair_arguments(raw), "native"))
        if calls:
            return calls, content, []
        # calls a reasoning model only *thought about* (inside <think>...</think>) are not calls
        thoughts = _THINK.findall(content or "")
        visible = _THINK.sub("", content or "")
        found, rest = extract_text_tool_calls(visible)
        fenced, rest = extract_fenced_json_calls(rest, TOOL_NAMES)
        found += fenced
        # recovered only when the name is a real tool and the arguments were read
        good = [c for c in found if c.name in TOOL_NAMES and c.arguments is not None and not c.error]
        bad = [c for c in found if c not in good]
        rejected = [self._why_rejected(c) for c in bad]
        for why, c in zip(rejected, bad):
            self._record_rejected(tools, why, c.form, c.name, c.raw)
        if not found:
            looks_like = tool_call_like(visible)
            if looks_like:
                rejected = [looks_like]
                self._record_rejected(tools, looks_like, "text", None, visible)
        if not good:
            return [], content, rejected
        rest = "\n".join(thoughts + ([rest] if rest else [])).strip()
        tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="text_tool_call_recovered",
                         message=f"{len(good)} tool call(s) recovered from the reply text",
                         data={"forms": [c.form for c in good], "excerpt": _excerpt(good[0].raw)})
        for i, c in enumerate(good):
            parsed = Repaired(c.arguments, c.repairs, c.error)
            calls.append(_Call(f"call_text_{tools.turns}_{i}", c.name, c.raw, parsed, c.form))
        if rejected:   # some recovered, some not: say so in the history the model sees
            rest = (rest + "\n\n" if rest else "") + REJECTED.format(why="; ".join(rejected))
        return calls, rest or None, rejected

    @staticmethod
    def _record_rejected(tools: ToolBox, why: str, form: str, name: str | None, raw: str) -> None:
        tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="tool_call_rejected",
                         message=why, data={"form": form, "tool": name, "excerpt": _excerpt(raw)})

    @staticmethod
    def _why_rejected(c: Any) -> str:
        if c.name and c.name not in TOOL_NAMES:
            return f"{c.name!r} is not a tool (the tools are {', '.join(sorted(TOOL_NAMES))})"
        return c.error or "the call could not be read"

    def _dispatch(self, call: _Call, tools: ToolBox, reply: Any, limit_hit: str | None) -> tuple[str, str | None]:
        p = call.parsed
        closed = p.value is not None and TRUNCATION_REPAIR in p.repairs
        if limit_hit or closed:
            detail = limit_hit or "its JSON needed closing brackets to parse"
            if limit_hit and closed:
                detail += "; its JSON needed closing brackets to parse"
            raw = call.raw if isinstance(call.raw, str) else json.dumps(call.raw)
            tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="tool_call_truncated",
                             message=f"tool call {call.name!r} cut off ({detail}); not executed",
                             data={"tool": call.name, "form": call.form, "finish_reason": reply.finish_reason,
                                   "tokens_out": reply.tokens_out, "max_tokens": self.config.max_tokens,
                                   "excerpt": _excerpt(raw)})
            return TRUNCATED.format(detail=detail), None
        if p.value is None:
            tools.trace.emit("error", turn=tools.turns, stage=tools.stage, kind="bad_tool_arguments",
                             message=p.error or "",
                             data={"tool": call.name, "raw": str(call.raw)[:2000], "form": call.form})
            return f"error: {p.error} The call was not executed; please send it again.", None
        if p.repairs:
            tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="tool_args_repaired",
                             message="; ".join(p.repairs), data={"tool": call.name, "form": call.form})
        if call.name == "submit_results":
            return tools.submit_results(), "submitted"
        if call.name != "execute_code":
            tools.trace.emit("error", turn=tools.turns, stage=tools.stage, kind="unknown_tool",
                             message=f"the model called {call.name!r}, which is not a tool",
                             data={"tool": call.name, "form": call.form, "excerpt": _excerpt(str(call.raw))})
            return f"error: unknown tool {call.name!r}; available tools: execute_code, submit_results", None
        args = p.value
        code = next((args[k] for k in ("code", "script", "command", "source") if isinstance(args.get(k), str)), None)
        language = _LANG_ALIASES.get(str(args.get("language", "")).strip().lower())
        if code is None or language is None:
            return ("error: execute_code needs two string arguments: 'language' ('python' or 'bash') and "
                    f"'code'. Got keys {sorted(args)}" + (f", language={args.get('language')!r}" if 'language' in args else "")
                    + ". The call was not executed."), None
        try:
            return tools.execute_code(language, code), None
        except RunStopped as stop:
            return f"run stopped by the harness: {stop.reason}", stop.reason
