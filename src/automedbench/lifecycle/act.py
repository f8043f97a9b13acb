"""act: the agent's turns, driven from inside or from outside (docs/architecture.md "The run
lifecycle").

- `act_inside(run)`: our agent (scripted, or the LLM agent that asks the model) runs its own
  loop through the run's ToolBox.
- `OutsideDriver(run)`: a caller (a test, an RL environment) holds the model. It reads
  `driver.messages` (system prompt and kickoff), then hands one assistant message at a time
  to `driver.step(message)` and gets the tool results back, until `done`.

Both act through the same ToolBox (trace, limits, violation policy, conversation) and the
same reply handling (agents/replies.py), so a trajectory leaves the same run folder whichever
side drove it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agents.replies import (
    TOOLS,
    ReplyInfo,
    ReplySettings,
    answer_calls,
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

    def step(self, message: dict[str, Any], usage: Usage | None = None) -> StepResult:
        """One assistant message (OpenAI chat format: content and/or tool_calls): its calls run in
        the sandbox; returns their result messages (none for a text-only reply, which the caller
        may answer or end on) and the end reason once the run has ended."""
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

    def finish(self) -> None:
        """The caller ends the run without submitting (recorded `agent_finished`)."""
        if not self.run.ended:
            agent_end(self.run.info, "agent_finished")
