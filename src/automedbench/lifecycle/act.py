"""act: the agent's turns, driven from inside or from outside (docs/architecture.md "The run
lifecycle").

- `act_inside(run)`: our agent (scripted, or the LLM agent that asks the model) runs its own
  loop through the run's ToolBox.
- `OutsideDriver(run)`: a caller (a test, an RL environment) holds the model. It reads
  `driver.messages` (system prompt and kickoff), then hands one assistant message at a time
  to `driver.step(message)` and gets the tool results back, until `done`. What the caller
  hands over is the caller's model's work, so a malformed message is the agent's fault
  (docs/rl.md "Malformed messages"): one that is not a message at all (a string, None) ends
  the run `agent_finished` (detail `malformed_message`) and is scored; `tool_calls` that is
  not a list of call objects is refused, with a message saying why, and the run goes on.

Both act through the same ToolBox (trace, limits, violation policy, conversation) and the
same reply handling (agents/replies.py), so a trajectory leaves the same run folder whichever
side drove it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agents.replies import (
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
from ..errors import UserError
from .policy import agent_end, faults_recorded
from .session import OpenRun


def act_inside(run: OpenRun) -> None:
    """Our agent acts until it ends; its end reason is recorded (provider faults as infra)."""
    if run.ended or run.box is None or run.context is None or run.conversation is None:
        return   # the run ended while opening
    agent = run.prep.agent
    with faults_recorded(run, "act"):
        outcome = agent.run(run.conversation.system_prompt, run.context, run.box)
        agent_end(run.info, outcome.end_reason)
        run.info.model = outcome.model or run.info.model


class RunEndedError(UserError):
    """A step handed to a run that has already ended."""


@dataclass
class Usage:
    """What the caller's model call cost, recorded as our agent loop records its own calls."""
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int | None = None
    cost_usd: float = 0.0
    duration_s: float = 0.0
    finish_reason: str | None = None


@dataclass
class StepResult:
    tool_messages: list[dict[str, Any]] = field(default_factory=list)
    end_reason: str | None = None    # the run's end reason once it has ended

    @property
    def done(self) -> bool:
        return self.end_reason is not None


# run.json's end_detail of a run whose outside policy handed over something that is not a message
MALFORMED_MESSAGE = "malformed_message"
REFUSED = ("Your message was refused and nothing in it was executed: {why}. Send an assistant message whose "
           "'tool_calls' is a list of objects, each {{\"id\": ..., \"type\": \"function\", \"function\": "
           "{{\"name\": ..., \"arguments\": \"<JSON object as a string>\"}}}}, or no 'tool_calls' at all.")


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


class OutsideDriver:
    """Drive an open run one assistant message at a time (module doc)."""

    tools = TOOLS    # the tool schemas to offer the caller's model

    def __init__(self, run: OpenRun, settings: ReplySettings | None = None):
        self.run = run
        self.settings = settings or ReplySettings()
        self.messages: list[dict[str, Any]] = []
        if run.box is not None and run.context is not None and run.conversation is not None:
            kickoff = {"role": "user", "content": run.context.kickoff}
            run.box.add_message(kickoff)
            self.messages = [{"role": "system", "content": run.conversation.system_prompt}, kickoff]

    @property
    def done(self) -> bool:
        return self.run.ended

    def step(self, message: object, usage: Usage | None = None) -> StepResult:
        """One assistant message (OpenAI chat format: content and/or tool_calls): its calls run in
        the sandbox; returns their result messages (none for a text-only reply, which the caller
        may answer or end on) and the end reason once the run has ended. A malformed message
        counts as a turn and is the agent's fault (module doc): not a dict ends the run; bad
        `tool_calls` is answered by one user message saying why, and nothing runs."""
        run, box = self.run, self.run.box
        if run.ended or box is None:
            raise RunEndedError(f"run {run.info.run_id} has ended ({run.info.end_reason}); open a new one")
        usage = usage or Usage()
        results: list[dict[str, Any]] = []
        with faults_recorded(run, "act_outside"):
            box.begin_turn()   # the task's turn and wall-time limits
            box.record_model_call(tokens_in=usage.tokens_in, tokens_out=usage.tokens_out, cost_usd=usage.cost_usd,
                                  duration_s=usage.duration_s, tokens_cached=usage.tokens_cached,
                                  finish_reason=usage.finish_reason)
            if not isinstance(message, dict):
                self._end_malformed(message)
                return StepResult([], run.info.end_reason)
            why = tool_calls_problem(message)
            if why is not None:
                return StepResult(self._refuse(message, why), run.info.end_reason)
            parsed = parse_reply(message, box)
            self.messages.append(record_assistant(parsed, box, message.get("reasoning_content")))
            if not parsed.calls:
                note_text_reply(parsed, box, usage.finish_reason)
            else:
                results, end = answer_calls(parsed, box, self.settings,
                                            ReplyInfo(usage.finish_reason, usage.tokens_out))
                self.messages.extend(results)
                if end is not None:
                    agent_end(run.info, end)
        return StepResult(results, run.info.end_reason)

    def _end_malformed(self, message: object) -> None:
        """Not a message at all: recorded as a rejected tool call (TOOL_CALL_REJECTED, the
        agent's) and the run ends as the agent's own (scored), never as infrastructure."""
        box = self.run.box
        assert box is not None
        why = not_a_message(message)
        box.trace.emit("warning", turn=box.turns, stage=box.stage, kind="tool_call_rejected",
                       message=f"{why}; the run ends (the policy's fault)",
                       data={"form": "message", "tool": None, "excerpt": excerpt(repr(message))})
        self.run.info.end_reason, self.run.info.end_detail = "agent_finished", MALFORMED_MESSAGE

    def _refuse(self, message: dict[str, Any], why: str) -> list[dict[str, Any]]:
        """Unreadable `tool_calls`: the text is kept, nothing runs, and the model is told why
        (TOOL_CALL_REJECTED); the answer is a user message, as there is no call id to answer."""
        box = self.run.box
        assert box is not None
        raw = message.get("content")
        content = raw if raw is None or isinstance(raw, str) else str(raw)
        self.messages.append(record_assistant(ParsedReply([], content), box, message.get("reasoning_content")))
        box.trace.emit("warning", turn=box.turns, stage=box.stage, kind="tool_call_rejected", message=why,
                       data={"form": "tool_calls", "tool": None, "excerpt": excerpt(repr(message.get("tool_calls")))})
        answer = {"role": "user", "content": REFUSED.format(why=why)}
        box.add_message(answer)
        self.messages.append(answer)
        return [answer]

    def finish(self) -> None:
        """The caller ends the run without submitting (recorded `agent_finished`)."""
        if not self.run.ended:
            agent_end(self.run.info, "agent_finished")
