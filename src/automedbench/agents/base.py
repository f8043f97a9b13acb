"""The Agent interface and the ToolBox, the harness side of the agent's two tools.

Every agent — scripted or LLM — acts only through `ToolBox.execute_code(language, code)`
and `ToolBox.submit_results()`, so every trajectory is recorded the same way: a
conversation (assistant tool calls + tool results) and trace events.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import AgentFault
from ..runs.models import Conversation, EndReason, Message
from ..runs.trace import TraceWriter
from ..sandbox import advisory
from ..sandbox.base import ExecResult, Sandbox
from .stage_labels import label

# Size of a tool result as the agent sees it (head + tail); the trace keeps the full output.
TOOL_RESULT_CHARS = 8000

# docs/sandbox.md#detection-and-the-violation-policy: first violation -> warning + blocked, second -> disqualified.
MAX_VIOLATIONS_BEFORE_DQ = 1


class RunStopped(AgentFault):
    """Raised from a tool call when the run must end now (disqualified, limit hit)."""

    def __init__(self, reason: EndReason):
        super().__init__(reason)
        self.reason: EndReason = reason


@dataclass
class AgentContext:
    """What an agent knows besides the system prompt: inside paths and the kickoff."""
    task_id: str
    tier: str
    data_dir: str
    workspace_dir: str
    kickoff: str
    output_files: list[str]
    input_files: list[str]
    track: str = ""
    track_options: Any = None               # the track's validated options model
    candidates: list[str] = field(default_factory=list)
    target_keywords: list[str] = field(default_factory=list)


@dataclass
class AgentOutcome:
    end_reason: str = "agent_finished"   # agent_finished | submitted | max_turns | wall_time | ...
    model: str | None = None


class Agent(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    def run(self, system_prompt: str, context: AgentContext, tools: "ToolBox") -> AgentOutcome: ...


def clip_middle(text: str, limit: int = TOOL_RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters elided; full output is in the trace ...]\n{text[-half:]}"


def format_result(result: ExecResult, note: str = "") -> str:
    parts = [f"exit_code: {result.exit_code}  duration: {result.duration_s:.2f}s"]
    if result.timed_out:
        parts.append("TIMED OUT: the execution was killed at the time limit.")
    if note:
        parts.append(note)
    if result.stdout:
        parts.append("stdout:\n" + clip_middle(result.stdout))
    if result.stderr:
        parts.append("stderr:\n" + clip_middle(result.stderr))
    return "\n".join(parts)


class ToolBox:
    """Harness side of the tools: runs code in the sandbox, labels stages, applies the
    violation policy, and records conversation + trace."""

    def __init__(self, sandbox: Sandbox, trace: TraceWriter, conversation: Conversation,
                 *, deadline: float | None = None, max_turns: int | None = None,
                 block_training: bool = False, output_checker: Callable[[Any], list[Any]] | None = None,
                 keep_files: Callable[[dict[str, Any] | None], object] | None = None):
        self.sandbox = sandbox
        # keeps the bytes each call left in the workspace, for the judge's experiments
        # (docs/judge.md "Experiments")
        self.keep_files = keep_files
        # the harness's check of each output unit a call wrote (docs/judge.md "Per-output checks")
        self.output_checker = output_checker
        self.trace = trace
        self.conversation = conversation
        self.deadline = deadline          # time.monotonic() value; None = no wall limit
        self.max_turns = max_turns
        self.block_training = block_training  # task option: refuse training code, not just flag it
        self.turns = 0                    # model turns (assistant messages)
        self.calls = 0
        self.stage: str | None = None
        self.submitted = False
        self.violations: list[dict[str, Any]] = []
        self.disqualified = False
        self.tokens_in = self.tokens_out = 0
        self.cost_usd = 0.0
        # who wrote the calls when it is not our own loop (an outside scaffold such as
        # mini-swe-agent): recorded on every tool_call event (docs/agents.md "What is recorded")
        self.call_source: dict[str, Any] | None = None
        # the last execute_code's sandbox result and the harness's note on it (violation), for a
        # scaffold that shows the model its own rendering of a result; None when nothing ran
        self.last_result: ExecResult | None = None
        self.last_note = ""

    # ---- conversation bookkeeping (LLM agents call these directly) ----------------
    def add_message(self, message: dict[str, Any]) -> None:
        self.conversation.messages.append(Message.model_validate(message))

    def begin_turn(self) -> None:
        if self.max_turns is not None and self.turns >= self.max_turns:
            raise RunStopped("max_turns")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise RunStopped("wall_time")
        self.turns += 1

    def record_model_call(self, *, tokens_in: int, tokens_out: int, cost_usd: float,
                          duration_s: float, tokens_cached: int | None = None, **data: Any) -> None:
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.cost_usd += cost_usd
        self.trace.emit("model_call", turn=self.turns, tokens_in=tokens_in, tokens_out=tokens_out,
                        tokens_cached=tokens_cached, cost_usd=round(cost_usd, 8),
                        duration_s=round(duration_s, 4), data=data or None)

    # ---- the two tools -------------------------------------------------------------
    def execute_code(self, language: str, code: str) -> str:
        """Run code in the sandbox; returns the text the agent sees."""
        if self.disqualified:
            raise RunStopped("disqualified")
        self.calls += 1
        self.last_result, self.last_note = None, ""
        stage, declared = label(code, self.stage)
        self.stage = stage
        data: dict[str, Any] = {"stage_declared": declared}
        if self.call_source:
            data["source"] = self.call_source
        self.trace.emit("tool_call", turn=self.turns, call_index=self.calls, stage=stage,
                        kind="execute_code", language=language, code=code, data=data)
        timeout = None
        if self.deadline is not None:
            # wall time is enforced during a long execution too, not only between turns
            timeout = max(1.0, self.deadline - time.monotonic())
            timeout = min(timeout, getattr(getattr(self.sandbox, "spec", None), "timeout_s", timeout))
        if language not in ("python", "bash"):
            text = f"error: unsupported language {language!r}; use 'python' or 'bash'"
            self.trace.emit("error", call_index=self.calls, kind="bad_tool_arguments", message=text)
            return text
        if self.block_training:
            blocked = self._blocked_training(language, code, stage)
            if blocked:
                return blocked
        result = self.sandbox.execute(language, code, timeout_s=timeout)
        checks = self._check_outputs(result)
        self._keep_files(result)
        self.trace.emit("execution", turn=self.turns, call_index=self.calls, stage=stage,
                        language=language, exit_code=result.exit_code, duration_s=round(result.duration_s, 4),
                        stdout=result.stdout, stderr=result.stderr, timed_out=result.timed_out,
                        # observed on the host by the sandbox, never taken from the agent's
                        # output (docs/sandbox.md "Observed effects")
                        effects=result.effects, output_checks=checks)
        for w in result.warnings:
            self.trace.emit("warning", call_index=self.calls, kind=w.get("kind", "advisory"),
                            message=w.get("message", ""), data=w)
        self.last_result = result
        note = ""
        if result.violations:
            note = self.last_note = self._apply_violations(result)
        if self.deadline is not None and time.monotonic() >= self.deadline and result.timed_out:
            raise RunStopped("wall_time")
        return format_result(result, note)

    def _check_outputs(self, result: Any) -> list[Any] | None:
        """The output units the call wrote, checked by the harness; a checker that fails is a
        warning on the call (a harness fault, never the agent's), and the call goes on."""
        if self.output_checker is None or not result.effects:
            return None
        try:
            return self.output_checker(result.effects) or None
        except Exception as exc:   # noqa: BLE001 -- our checker's fault must not end the agent's run
            result.warnings.append({"kind": "output_checks_unavailable",
                                    "message": f"outputs not checked: {type(exc).__name__}: {exc}"})
            return None

    def _keep_files(self, result: ExecResult) -> None:
        """The call's written files kept for the experiments; a failure to keep them is a
        warning (the experiments then say which files were not kept), never the agent's fault."""
        if self.keep_files is None or not result.effects:
            return
        try:
            self.keep_files(result.effects)
        except Exception as exc:   # noqa: BLE001 -- our store's fault must not end the agent's run
            result.warnings.append({"kind": "files_not_kept",
                                    "message": f"written files not kept for experiments: {type(exc).__name__}: {exc}"})

    def submit_results(self) -> str:
        if self.disqualified:
            raise RunStopped("disqualified")
        self.calls += 1
        self.submitted = True
        self.stage = "s5"
        self.trace.emit("submit", turn=self.turns, call_index=self.calls, stage="s5")
        return "Submission received. The harness will now check and score your outputs."

    def _blocked_training(self, language: str, code: str, stage: str) -> str | None:
        """Inference-only tasks may block training code outright (docs/sandbox.md). The static scan
        is advisory everywhere else; here it decides whether the call runs at all."""
        found = [w for w in advisory.scan(language, code) if w["kind"] == "training_detected"]
        if not found:
            return None
        for w in found:
            self.trace.emit("warning", turn=self.turns, call_index=self.calls, stage=stage,
                            kind="training_detected", message=w["message"], data={**w, "blocked": True})
        return (f"BLOCKED (not executed): {found[0]['message']} — line {found[0]['line']}: "
                f"{found[0]['excerpt']}. This task is inference-only: use pre-trained weights.")

    # ---- violation policy (docs/sandbox.md) ---------------------------------------------------
    def _apply_violations(self, result: ExecResult) -> str:
        for v in result.violations:
            record = {**v, "turn": self.turns, "call_index": self.calls}
            self.violations.append(record)
            self.trace.emit("violation", turn=self.turns, call_index=self.calls, kind=v.get("kind", "violation"),
                            message=v.get("evidence", ""), data=record)
        if len(self.violations) > MAX_VIOLATIONS_BEFORE_DQ:
            self.disqualified = True
            for v in self.violations:
                v["action"] = "disqualified"
            raise RunStopped("disqualified")
        for v in self.violations:
            v.setdefault("action", "warned")
        return ("SANDBOX VIOLATION (warning 1 of 1): this call tried to reach a forbidden location "
                f"({json.dumps(result.violations[0].get('path'))}). The access was blocked and recorded. "
                "A second violation disqualifies the run.")
