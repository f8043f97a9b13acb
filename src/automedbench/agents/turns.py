"""The one agent loop: every policy's turns go through `Turns` (docs/llm.md "What the loop
does", docs/rl.md "One loop").

A policy answers the conversation so far with one assistant message:

    policy(messages, tools) -> message | (message, Usage)

our LLM agent (agents/llm.py asks the model), a trainer's model (rl/), a test's script.
`Turns` takes each message and says what the model sees next: the calls run through the
ToolBox (agents/replies.py parses, repairs, dispatches), a text-only reply is answered with a
`continue` prompt (cut at the output token limit) or a nudge, and after the nudges it ends
the run. The limits (turns, tokens, cost, wall time) are checked at each turn boundary: the
turn that crosses one completes (its calls run), then the run ends before the next. A
provider failure is written here too, the one place (an infrastructure error in the trace).

    turns = Turns(tools, system_prompt, kickoff, rules)
    end = drive(turns, policy)                     # we ask the policy, turn after turn, or
    answers = turns.take(message, usage)           # a caller hands one message at a time
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol, Union

from ..llm.client import ProviderError
from .base import RunStopped, ToolBox
from .replies import (
    REJECTED,
    TOOLS,
    ParsedReply,
    ReplyInfo,
    ReplySettings,
    answer_calls,
    excerpt,
    note_text_reply,
    parse_reply,
    record_assistant,
)

NUDGE = ("You replied without calling a tool. Continue the task by calling execute_code, or call "
         "submit_results if all outputs are written and verified.")
CONTINUE = ("Your reply was cut off at the output token limit. Continue exactly where you stopped; "
            "if you were writing a tool call, send it again, shorter.")
# run.json's end_detail of a run whose policy handed over something that is not a message
MALFORMED_MESSAGE = "malformed_message"
REFUSED = ("Your message was refused and nothing in it was executed: {why}. Send an assistant message whose "
           "'tool_calls' is a list of objects, each {{\"id\": ..., \"type\": \"function\", \"function\": "
           "{{\"name\": ..., \"arguments\": \"<JSON object as a string>\"}}}}, or no 'tool_calls' at all.")


@dataclass
class Usage:
    """What one model call cost, recorded as a `model_call` trace event."""
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int | None = None
    cost_usd: float = 0.0
    duration_s: float = 0.0
    finish_reason: str | None = None
    attempts: int | None = None          # requests it took (retries), where the policy knows
    usage_estimated: bool = False         # the server sent no usage: tokens estimated


PolicyOutput = Union[dict[str, Any], tuple[dict[str, Any], Usage]]


class Policy(Protocol):
    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> PolicyOutput: ...


@dataclass(frozen=True)
class TurnRules:
    """How turns are answered and when they stop (an LLM agent entry's fields, AgentConfig's
    defaults here). `max_turns` is besides the ToolBox's (the task's); the ToolBox's deadline
    is the wall time."""
    nudges: int = 1                        # text-only replies answered with a nudge before the end
    max_continuations: int = 3             # consecutive continue prompts after finish_reason length
    reply: ReplySettings = field(default_factory=ReplySettings)
    max_turns: int | None = None
    max_total_tokens: int | None = None
    max_cost_usd: float | None = None


def rules_of(policy: object) -> TurnRules:
    """A policy's own rules (its `rules()`, as the LLM agent states its entry's), else the defaults."""
    own = getattr(policy, "rules", None)
    rules = own() if callable(own) else None
    return rules if isinstance(rules, TurnRules) else TurnRules()


def _what(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:80] + '...' if len(text) > 80 else text}"


def not_a_message(message: object) -> str | None:
    """Why `message` is not an assistant message at all (None: it is a JSON object)."""
    if isinstance(message, dict):
        return None
    return (f"the policy's message is a {_what(message)}, not an assistant message "
            "(a JSON object with 'content' and/or 'tool_calls')")


def tool_calls_problem(message: dict[str, Any]) -> str | None:
    """Why the message's `tool_calls` cannot be read as calls (None: absent, null or a list of
    call objects). A call's own name and arguments are checked where it is dispatched."""
    calls = message.get("tool_calls")
    if calls is None:
        return None
    if not isinstance(calls, list):
        return f"'tool_calls' is a {_what(calls)}, not a list of tool calls"
    for i, call in enumerate(calls):
        if not isinstance(call, dict):
            return f"'tool_calls' item {i} is a {_what(call)}, not a tool call object"
        if not isinstance(call.get("function"), dict):
            return f"'tool_calls' item {i} has 'function' = {_what(call.get('function'))}, not an object"
    return None


class Turns:
    """The harness side of one agent's turns (module doc). `end` is the end reason once the
    run ended (with `end_detail` where there is one), `messages` the conversation as the model
    sees it next."""

    tools_schema = TOOLS

    def __init__(self, tools: ToolBox, system_prompt: str, kickoff: str, rules: TurnRules | None = None):
        self.tools = tools
        self.rules = rules or TurnRules()
        first = {"role": "user", "content": kickoff}
        tools.add_message(first)
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}, first]
        self.end: str | None = None
        self.end_detail: str | None = None
        self.taken = 0                      # messages taken
        self._nudges_left = self.rules.nudges
        self._continuations = 0

    @property
    def deadline(self) -> float | None:
        """The wall-time limit (time.monotonic()), for a policy that bounds its own waits by it."""
        return self.tools.deadline

    def warn(self, kind: str, message: str, data: dict[str, Any] | None = None) -> None:
        """A policy's warning in the trace (a provider retry, say)."""
        self.tools.trace.emit("warning", turn=self.tools.turns, kind=kind, message=message, data=data)

    # ---- the turn boundary ---------------------------------------------------------------
    def _limit(self) -> str | None:
        box, lim = self.tools, self.rules
        turn_limits = [n for n in (lim.max_turns, box.max_turns) if n is not None]
        if turn_limits and box.turns >= min(turn_limits):
            return "max_turns"
        if lim.max_total_tokens is not None and box.tokens_in + box.tokens_out >= lim.max_total_tokens:
            return "max_tokens"
        if lim.max_cost_usd is not None and box.cost_usd >= lim.max_cost_usd:
            return "max_cost"
        if box.deadline is not None and time.monotonic() >= box.deadline:
            return "wall_time"
        return None

    def at_limit(self) -> bool:
        """Whether the run has ended or a limit ends it now (recorded once)."""
        if self.end is not None:
            return True
        reason = self._limit()
        if reason is None:
            return False
        box = self.tools
        box.trace.emit("warning", turn=box.turns, kind="limit", message=f"run limit reached: {reason}",
                       data={"tokens": box.tokens_in + box.tokens_out, "cost_usd": box.cost_usd})
        self.end = reason
        return True

    # ---- one message ---------------------------------------------------------------------
    def take(self, message: object, usage: Usage | None = None) -> list[dict[str, Any]]:
        """One assistant message: a turn. Returns what answers it (tool results, a nudge, a
        continue prompt, a refusal); `end` is set once the run ended."""
        box = self.tools
        usage = usage or Usage()
        try:
            box.begin_turn()
        except RunStopped as stop:
            self.end = stop.reason
            return []
        self.taken += 1
        box.record_model_call(tokens_in=usage.tokens_in, tokens_out=usage.tokens_out, cost_usd=usage.cost_usd,
                              duration_s=usage.duration_s, tokens_cached=usage.tokens_cached,
                              finish_reason=usage.finish_reason, attempts=usage.attempts,
                              usage_estimated=usage.usage_estimated or None)
        answers = self._answer(message, usage)
        self.at_limit()
        return answers

    def _answer(self, message: object, usage: Usage) -> list[dict[str, Any]]:
        if not isinstance(message, dict):
            self._end_malformed(message)
            return []
        why = tool_calls_problem(message)
        if why is not None:
            return self._refuse(message, why)
        box = self.tools
        parsed = parse_reply(message, box)
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        self.messages.append(record_assistant(parsed, box, reasoning if isinstance(reasoning, str) else None))
        if not parsed.calls:
            note_text_reply(parsed, box, usage.finish_reason)
            return self._after_text(parsed, usage.finish_reason)
        self._continuations, self._nudges_left = 0, self.rules.nudges
        results, end = answer_calls(parsed, box, self.rules.reply,
                                    ReplyInfo(usage.finish_reason, usage.tokens_out, usage.usage_estimated))
        self.messages.extend(results)
        self.end = end
        return results

    def _after_text(self, parsed: ParsedReply, finish_reason: str | None) -> list[dict[str, Any]]:
        """A reply without a call: continue (cut at the token limit), nudge, or the end."""
        if finish_reason == "length" and not parsed.rejected and self._continuations < self.rules.max_continuations:
            self._continuations += 1
            return [self._prompt(CONTINUE, "continue_prompt")]
        if self._nudges_left > 0:
            self._nudges_left -= 1
            if parsed.rejected:
                return [self._prompt(REJECTED.format(why="; ".join(parsed.rejected)), "nudge",
                                     {"rejected": parsed.rejected})]
            return [self._prompt(NUDGE, "nudge")]
        self.end = "agent_finished"
        return []

    def _prompt(self, text: str, kind: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """A harness message to the model (nudge, continue), recorded as a trace event."""
        box = self.tools
        box.trace.emit("warning", turn=box.turns, stage=box.stage, kind=kind, message=text, data=data)
        msg = {"role": "user", "content": text}
        box.add_message(msg)
        self.messages.append(msg)
        return msg

    def _end_malformed(self, message: object) -> None:
        """Not a message at all: recorded as a rejected tool call (TOOL_CALL_REJECTED, the
        policy's) and the run ends as the agent's own (scored), never as infrastructure."""
        box = self.tools
        box.trace.emit("warning", turn=box.turns, stage=box.stage, kind="tool_call_rejected",
                       message=f"{not_a_message(message)}; the run ends (the policy's fault)",
                       data={"form": "message", "tool": None, "excerpt": excerpt(repr(message))})
        self.end, self.end_detail = "agent_finished", MALFORMED_MESSAGE

    def _refuse(self, message: dict[str, Any], why: str) -> list[dict[str, Any]]:
        """Unreadable `tool_calls`: the text is kept, nothing runs, and the model is told why
        (TOOL_CALL_REJECTED); the answer is a user message, as there is no call id to answer."""
        box = self.tools
        raw = message.get("content")
        content = raw if raw is None or isinstance(raw, str) else str(raw)
        self.messages.append(record_assistant(ParsedReply([], content), box, message.get("reasoning_content")))
        box.trace.emit("warning", turn=box.turns, stage=box.stage, kind="tool_call_rejected", message=why,
                       data={"form": "tool_calls", "tool": None, "excerpt": excerpt(repr(message.get("tool_calls")))})
        answer = {"role": "user", "content": REFUSED.format(why=why)}
        box.add_message(answer)
        self.messages.append(answer)
        return [answer]

    # ---- ends the policy's side brings ---------------------------------------------------
    def provider_failed(self, reason: str, message: str, data: dict[str, Any] | None = None) -> None:
        """The policy's model provider failed (docs/llm.md "Robustness"): an infrastructure
        error in the trace, the run ends with the provider's reason; a wait that ran past the
        wall time is that limit."""
        box = self.tools
        if reason == "wall_time":
            box.trace.emit("warning", turn=box.turns, kind="limit", message=message)
        else:
            box.trace.emit("error", turn=box.turns, kind="infrastructure", message=message,
                           data={"reason": reason, **(data or {})})
        self.end = reason

    def crashed(self, message: str, data: dict[str, Any] | None = None) -> None:
        """The policy raised: the agent's crash (scored)."""
        self.tools.trace.emit("error", kind="agent_crash", message=message, data=data)
        self.end = "agent_crash"


def provider_facts(exc: ProviderError, policy: object) -> dict[str, Any]:
    """What the trace says of a provider failure: its kind, status and attempts, and the
    policy's model and endpoint where it has them."""
    facts: dict[str, Any] = {"fault": exc.fault, "status": exc.status, "attempts": exc.attempts}
    config = getattr(policy, "config", None)
    facts["model"] = getattr(config, "model", None) or getattr(policy, "model", None)
    facts["base_url"] = getattr(config, "base_url", None) or getattr(policy, "base_url", None)
    return facts


def drive(turns: Turns, policy: Policy) -> str:
    """Ask `policy` turn after turn until the run ends; returns the end reason. A policy with
    `start(turns)` is told the run it plays first (the LLM agent bounds its waits by the wall
    time and records its retries), one with `close()` is closed at the end. A provider failure
    ends the run (infrastructure); any other exception of the policy propagates (the caller
    records the agent's crash)."""
    start = getattr(policy, "start", None)
    if callable(start):
        start(turns)
    try:
        while not turns.at_limit():
            try:
                out = policy(list(turns.messages), turns.tools_schema)
            except ProviderError as exc:
                turns.provider_failed(exc.reason, exc.message, provider_facts(exc, policy))
                break
            message, usage = out if isinstance(out, tuple) and len(out) == 2 else (out, None)
            turns.take(message, usage if isinstance(usage, Usage) else None)
    finally:
        close = getattr(policy, "close", None)
        if callable(close):
            close()
    assert turns.end is not None
    return turns.end
