"""One assistant message in, its tool calls run, their results out: the part of a turn that
does not depend on who wrote the message.

The LLM agent (agents/llm.py) asks the model and hands each reply here; the run lifecycle's
outside driver (lifecycle/act.py) is handed the message by its caller. Both therefore parse,
repair, dispatch, record and clip in the same way (docs/llm.md "Tool calls").

    parsed = parse_reply(message, tools)          # calls (native or recovered from text), kept text
    record_assistant(parsed, tools, reasoning)    # the conversation's assistant message
    results, end = answer_calls(parsed, tools, settings, ReplyInfo(...))
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .base import RunStopped, ToolBox, clip_middle
from .toolcall_parse import (
    TRUNCATION_REPAIR,
    Repaired,
    TextToolCall,
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


@dataclass(frozen=True)
class ReplySettings:
    """How calls are answered (the LLM agent's entry sets these; AgentConfig's defaults here)."""
    max_tokens: int | None = 4096          # the output token limit a cut call is checked against
    tool_result_chars: int = 16000         # size of a tool result fed back to the model
    tool_results_as: str = "tool"          # "tool" messages, or one "user" message of results


@dataclass(frozen=True)
class ReplyInfo:
    """What the server said about the reply besides its message."""
    finish_reason: str | None = None
    tokens_out: int = 0
    usage_estimated: bool = False


@dataclass
class ToolCall:
    id: str
    name: str
    raw: Any
    parsed: Repaired
    form: str

    def wire(self) -> dict[str, Any]:
        args = json.dumps(self.parsed.value) if self.parsed.value is not None else \
            (self.raw if isinstance(self.raw, str) else json.dumps(self.raw))
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": args}}


@dataclass
class ParsedReply:
    calls: list[ToolCall]
    content: str | None                    # the text kept beside the calls
    rejected: list[str] = field(default_factory=list)   # why tool-call-like text was not run

    def assistant_message(self) -> dict[str, Any]:
        # content "" (never null) next to tool calls: llama-cpp-python answers HTTP 500 to
        # `content: null`, and every OpenAI-compatible server accepts ""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.calls:
            msg["tool_calls"] = [c.wire() for c in self.calls]
        return msg


def excerpt(text: str | None, n: int = EXCERPT) -> str:
    text = (text or "").strip()
    return text if len(text) <= n else text[: n // 2] + " … " + text[-n // 2:]


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):   # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def record_assistant(parsed: ParsedReply, tools: ToolBox, reasoning: str | None = None) -> dict[str, Any]:
    """Record the assistant message (with the model's reasoning, if any); returns it as sent back."""
    msg = parsed.assistant_message()
    tools.add_message({**msg, "reasoning_content": reasoning} if reasoning else msg)
    return msg


def parse_reply(message: dict[str, Any], tools: ToolBox) -> ParsedReply:
    """The calls to dispatch, the text to keep, and reasons for rejected tool-call-like text."""
    content = _text(message.get("content"))
    calls: list[ToolCall] = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        if not isinstance(tc, dict):
            continue
        fn = tc.get("function") or {}
        raw = fn.get("arguments")
        calls.append(ToolCall(tc.get("id") or f"call_{tools.turns}_{i}", str(fn.get("name") or ""),
                              raw, repair_arguments(raw), "native"))
    if calls:
        return ParsedReply(calls, content)
    return _recover_text_calls(content, tools)


def _recover_text_calls(content: str | None, tools: ToolBox) -> ParsedReply:
    """Calls written as text (docs/llm.md): recovered when the name is a real tool and the
    arguments were read; calls a reasoning model only *thought about* (inside <think>) are not calls."""
    thoughts = _THINK.findall(content or "")
    visible = _THINK.sub("", content or "")
    found, rest = extract_text_tool_calls(visible)
    fenced, rest = extract_fenced_json_calls(rest, TOOL_NAMES)
    found += fenced
    good = [c for c in found if c.name in TOOL_NAMES and c.arguments is not None and not c.error]
    bad = [c for c in found if c not in good]
    rejected = [_why_rejected(c) for c in bad]
    for why, c in zip(rejected, bad):
        _record_rejected(tools, why, c.form, c.name, c.raw)
    if not found:
        looks_like = tool_call_like(visible)
        if looks_like:
            rejected = [looks_like]
            _record_rejected(tools, looks_like, "text", None, visible)
    if not good:
        return ParsedReply([], content, rejected)
    rest = "\n".join(thoughts + ([rest] if rest else [])).strip()
    tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="text_tool_call_recovered",
                     message=f"{len(good)} tool call(s) recovered from the reply text",
                     data={"forms": [c.form for c in good], "excerpt": excerpt(good[0].raw)})
    calls = [ToolCall(f"call_text_{tools.turns}_{i}", c.name, c.raw, Repaired(c.arguments, c.repairs, c.error), c.form)
             for i, c in enumerate(good)]
    if rejected:   # some recovered, some not: say so in the history the model sees
        rest = (rest + "\n\n" if rest else "") + REJECTED.format(why="; ".join(rejected))
    return ParsedReply(calls, rest or None, rejected)


def _record_rejected(tools: ToolBox, why: str, form: str, name: str | None, raw: str) -> None:
    tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="tool_call_rejected",
                     message=why, data={"form": form, "tool": name, "excerpt": excerpt(raw)})


def _why_rejected(c: TextToolCall) -> str:
    if c.name and c.name not in TOOL_NAMES:
        return f"{c.name!r} is not a tool (the tools are {', '.join(sorted(TOOL_NAMES))})"
    return c.error or "the call could not be read"


def note_text_reply(parsed: ParsedReply, tools: ToolBox, finish_reason: str | None) -> None:
    """A reply without a tool call is recorded as a warning (the judge and the error codes read it)."""
    tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="text_reply",
                     message=excerpt(parsed.content) or "(empty reply)",
                     data={"finish_reason": finish_reason, "chars": len(parsed.content or ""),
                           "tool_call_like": parsed.rejected or None})


def hit_token_limit(info: ReplyInfo, settings: ReplySettings) -> str | None:
    """Why this reply ended at the output token limit, or None. Some servers
    (llama-cpp-python) say finish_reason "tool_calls" even then, so the completion
    token count is checked against max_tokens too."""
    if info.finish_reason == "length":
        return 'finish_reason "length"'
    mt = settings.max_tokens
    if mt is not None and not info.usage_estimated and info.tokens_out >= mt:
        return f"completion tokens {info.tokens_out} = max_tokens {mt}"
    return None


def answer_calls(parsed: ParsedReply, tools: ToolBox, settings: ReplySettings,
                 info: ReplyInfo) -> tuple[list[dict[str, Any]], str | None]:
    """Dispatch the calls in order (after the run ends, the rest are answered, not run), record
    the result messages and return them with the end reason (None: the run goes on)."""
    cut_at_limit = hit_token_limit(info, settings)
    end: str | None = None
    results: list[tuple[ToolCall, str]] = []
    for i, call in enumerate(parsed.calls):
        if end is not None:
            text = f"not executed: the run ended ({end}) before this call."
        else:
            # a reply cut at the token limit cuts its LAST call; any call whose JSON
            # needed closing brackets was cut too
            limit_hit = cut_at_limit if i == len(parsed.calls) - 1 else None
            text, end = dispatch(call, tools, settings, info, limit_hit)
        results.append((call, clip_middle(text, settings.tool_result_chars)))
    messages = result_messages(results, settings)
    for msg in messages:
        tools.add_message(msg)
    return messages, end


def result_messages(results: list[tuple[ToolCall, str]], settings: ReplySettings) -> list[dict[str, Any]]:
    """Tool results as `role: tool` messages, or - for servers whose chat format drops
    them (llama-cpp-python's chatml-function-calling) - as one user message."""
    if settings.tool_results_as == "tool":
        return [{"role": "tool", "tool_call_id": c.id, "content": text} for c, text in results]
    body = "\n\n".join(f"[result of {c.name} call {c.id}]\n{text}" for c, text in results)
    return [{"role": "user", "content": "Tool results:\n\n" + body}]


def _not_runnable(call: ToolCall, tools: ToolBox, settings: ReplySettings, info: ReplyInfo,
                  limit_hit: str | None) -> str | None:
    """The answer to a call cut at the token limit or whose arguments could not be read, else None."""
    p = call.parsed
    closed = p.value is not None and TRUNCATION_REPAIR in p.repairs
    if limit_hit or closed:
        detail = limit_hit or "its JSON needed closing brackets to parse"
        if limit_hit and closed:
            detail += "; its JSON needed closing brackets to parse"
        raw = call.raw if isinstance(call.raw, str) else json.dumps(call.raw)
        tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="tool_call_truncated",
                         message=f"tool call {call.name!r} cut off ({detail}); not executed",
                         data={"tool": call.name, "form": call.form, "finish_reason": info.finish_reason,
                               "tokens_out": info.tokens_out, "max_tokens": settings.max_tokens,
                               "excerpt": excerpt(raw)})
        return TRUNCATED.format(detail=detail)
    if p.value is None:
        tools.trace.emit("error", turn=tools.turns, stage=tools.stage, kind="bad_tool_arguments",
                         message=p.error or "",
                         data={"tool": call.name, "raw": str(call.raw)[:2000], "form": call.form})
        return f"error: {p.error} The call was not executed; please send it again."
    return None


def dispatch(call: ToolCall, tools: ToolBox, settings: ReplySettings, info: ReplyInfo,
             limit_hit: str | None) -> tuple[str, str | None]:
    """Run one call: (the text the model sees, the end reason if the run ends here)."""
    refused = _not_runnable(call, tools, settings, info, limit_hit)
    if refused is not None:
        return refused, None
    p = call.parsed
    if p.repairs:
        tools.trace.emit("warning", turn=tools.turns, stage=tools.stage, kind="tool_args_repaired",
                         message="; ".join(p.repairs), data={"tool": call.name, "form": call.form})
    if call.name == "submit_results":
        return tools.submit_results(), "submitted"
    if call.name != "execute_code":
        tools.trace.emit("error", turn=tools.turns, stage=tools.stage, kind="unknown_tool",
                         message=f"the model called {call.name!r}, which is not a tool",
                         data={"tool": call.name, "form": call.form, "excerpt": excerpt(str(call.raw))})
        return f"error: unknown tool {call.name!r}; available tools: execute_code, submit_results", None
    args: dict[str, Any] = p.value or {}   # None was answered by _not_runnable
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
