"""act: the agent's turns (docs/architecture.md "The run lifecycle", docs/rl.md "One loop").

Every policy (a callable answering the conversation with one assistant message: our LLM
agent, a trainer's model, a test's script) is driven through one driver, `RunDriver`, over the
one loop of agents/turns.py, so a run, a sweep cell and an RL episode share the nudges, the
length continuations, the limits (turns, tokens, cost, wall time, as run.json records them)
and the provider-failure path:

- `act(run)`: the run's agent acts until the run ends: a policy is asked turn after turn
  through the run's driver; a scripted agent (not a policy) acts through the ToolBox itself.
  `act(run, policy, driver)` does the same for a policy handed in (an RL episode's).
- `RunDriver(run)`: a caller holds the model. It reads `driver.messages` (system prompt and
  kickoff), then hands one assistant message at a time to `driver.step(message)` and gets
  back what answers it, until `done`. What the caller hands over is the caller's model's
  work, so a malformed message is the agent's fault (docs/rl.md "Malformed messages").

Either way the same ToolBox and the same reply handling (agents/replies.py) record it, so a
trajectory leaves the same run folder whichever side drove it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..agents.replies import TOOLS
from ..agents.turns import MALFORMED_MESSAGE, Policy, TurnRules, Turns, Usage, drive, rules_of
from ..errors import UserError
from ..scoring.error_codes import PROVIDER_DETAILS
from .policy import agent_end, faults_recorded
from .session import OpenRun

__all__ = ["MALFORMED_MESSAGE", "RunDriver", "RunEndedError", "StepResult", "Usage", "act", "is_policy"]


class RunEndedError(UserError):
    """A step handed to a run that has already ended."""


@dataclass
class StepResult:
    tool_messages: list[dict[str, Any]] = field(default_factory=list)
    end_reason: str | None = None    # the run's end reason once it has ended

    @property
    def done(self) -> bool:
        return self.end_reason is not None


def is_policy(agent: object) -> bool:
    """A policy is called with the conversation (module doc); a scripted agent is not callable."""
    return callable(agent) and not isinstance(agent, type)


def run_rules(run: OpenRun, rules: TurnRules | None = None) -> TurnRules:
    """`rules` (a policy's own, or the defaults) under the run's limits as run.json records
    them: the tighter of the task's, the agent entry's and the caller's (runs/effective_config.py).
    The task's turn limit and wall time are the ToolBox's."""
    limits = run.meta.limits
    return dataclasses.replace(rules or TurnRules(), max_turns=limits.get("max_turns"),
                               max_total_tokens=limits.get("max_total_tokens"),
                               max_cost_usd=limits.get("max_cost_usd"))


class RunDriver:
    """Drive an open run one assistant message at a time (module doc)."""

    tools = TOOLS    # the tool schemas to offer the caller's model

    def __init__(self, run: OpenRun, rules: TurnRules | None = None):
        self.run = run
        self.turns: Turns | None = None
        if run.box is not None and run.context is not None and run.conversation is not None:
            self.turns = Turns(run.box, run.conversation.system_prompt, run.context.kickoff, run_rules(run, rules))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.turns.messages if self.turns is not None else []

    @property
    def done(self) -> bool:
        return self.run.ended

    def adopt(self, policy: object) -> None:
        """Answer as `policy` asks (its nudges, continuations, reply settings), under the run's
        limits; only before the first turn."""
        if self.turns is not None and self.turns.taken == 0:
            self.turns.rules = run_rules(self.run, rules_of(policy))

    def _live(self) -> Turns:
        run = self.run
        if run.ended or self.turns is None:
            raise RunEndedError(f"run {run.info.run_id} has ended ({run.info.end_reason}); open a new one")
        return self.turns

    def _record_end(self) -> None:
        turns, info = self.turns, self.run.info
        if turns is not None and turns.end is not None and info.end_reason is None:
            agent_end(info, turns.end)
            if turns.end_detail:
                info.end_detail = turns.end_detail

    def step(self, message: object, usage: Usage | None = None) -> StepResult:
        """One assistant message (OpenAI chat format: content and/or tool_calls): its calls run in
        the sandbox; returns what answers it (tool results; a nudge or continue prompt after a
        text-only reply; a refusal of unreadable tool_calls) and the end reason once the run has
        ended. Not a dict ends the run as the agent's own (module doc)."""
        turns = self._live()
        answers: list[dict[str, Any]] = []
        with faults_recorded(self.run, "act_outside"):
            answers = turns.take(message, usage)
        self._record_end()
        return StepResult(answers, self.run.info.end_reason)

    def end(self, reason: str | None = None, message: str = "") -> None:
        """The caller ends the run: `None`/`agent_finished` (it stopped), a provider end reason
        (its model's provider failed: infrastructure), `agent_crash` (its policy raised), or
        another end reason the run records."""
        if self.run.ended:
            return
        turns = self.turns
        if turns is not None:
            if reason in PROVIDER_DETAILS:
                turns.provider_failed(str(reason), message or f"the caller's model provider failed ({reason})",
                                      {"fault": "outage" if reason == "provider_unavailable" else None})
            elif reason == "agent_crash":
                turns.crashed(message or "the caller's policy crashed")
            else:
                turns.end = reason or "agent_finished"
            self._record_end()
        if not self.run.ended:
            agent_end(self.run.info, reason or "agent_finished")

    def finish(self) -> None:
        """The caller ends the run without submitting (recorded `agent_finished`)."""
        self.end()



def act(run: OpenRun, policy: Policy | None = None, driver: RunDriver | None = None) -> None:
    """The agent (or `policy`) acts until the run ends; its end reason is recorded (provider
    faults as infrastructure, an exception of the policy as its crash)."""
    if run.ended or run.box is None or run.context is None or run.conversation is None:
        return   # the run ended while opening
    agent: Any = policy if policy is not None else run.prep.agent
    with faults_recorded(run, "act"):
        if is_policy(agent):
            driver = driver or RunDriver(run)
            driver.adopt(agent)
            assert driver.turns is not None
            drive(driver.turns, agent)
            driver._record_end()
        else:   # a scripted agent acts through the ToolBox itself
            outcome = agent.run(run.conversation.system_prompt, run.context, run.box)
            agent_end(run.info, outcome.end_reason)
            run.info.model = outcome.model or run.info.model

