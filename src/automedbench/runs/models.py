"""Typed records of a run (SPEC §8). Every saved artifact has a model here and a JSON Schema in schemas/.

`DetailReport` is a public contract: change its keys only with a SCHEMA_VERSION bump.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"

StageId = Literal["s1", "s2", "s3", "s4", "s5"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunInfo(_Strict):
    run_id: str
    agent: str
    model: str | None = None
    task: str
    track: str
    tier: str
    started_at: str
    wall_time_s: float = 0.0
    turns: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    submitted: bool = False
    sandbox: str = "local"
    end_reason: str | None = None


class StageResult(_Strict):
    score: float | None = None
    items: dict[str, float] = Field(default_factory=dict)
    rationale: str = ""


class CaseResult(_Strict):
    case_id: str
    valid: bool
    reason: str = ""
    metrics: dict[str, float | None] = Field(default_factory=dict)


class TaskResult(_Strict):
    score: float = 0.0
    metric_name: str
    completion_rate: float = 0.0
    format_valid: bool = False
    per_case: list[CaseResult] = Field(default_factory=list)
    unexpected_cases: list[str] = Field(default_factory=list)


class ErrorCode(_Strict):
    code: str
    category: str
    step: str
    evidence: dict[str, Any] = Field(default_factory=dict)
    infrastructure: bool = False


class Violation(_Strict):
    kind: str
    path: str | None = None
    turn: int | None = None
    call_index: int | None = None
    evidence: str = ""
    action: Literal["warned", "disqualified"] = "warned"


class JudgeInfo(_Strict):
    backend: str = "heuristic"
    model: str | None = None
    version: str = "1"
    judge_incomplete: bool = False
    agreement: dict[str, Any] | None = None


class DetailReport(_Strict):
    schema_version: str = SCHEMA_VERSION
    run: RunInfo
    stages: dict[StageId, StageResult]
    active_stages: list[StageId]
    agentic: float | None
    task: TaskResult
    overall: float | None
    medal: Literal["good", "okay", "none"] = "none"
    rating: Literal["A", "B", "C", "F"] = "F"
    errors: list[ErrorCode] = Field(default_factory=list)
    violations: list[Violation] = Field(default_factory=list)
    judge: JudgeInfo = Field(default_factory=JudgeInfo)
    disqualified: bool = False
    flags: list[str] = Field(default_factory=list)


# ---- trace.jsonl: one event per line -------------------------------------------------

class TraceEvent(_Strict):
    """One line of trace.jsonl. `type` says which optional fields are filled."""

    type: Literal[
        "run_start", "model_call", "tool_call", "execution", "stage", "violation",
        "warning", "submit", "error", "run_end",
    ]
    t: float = Field(description="seconds since run start")
    turn: int | None = None
    call_index: int | None = None
    stage: StageId | None = None
    # model_call
    tokens_in: int | None = None
    tokens_out: int | None = None
    tokens_cached: int | None = None
    cost_usd: float | None = None
    duration_s: float | None = None
    # execution
    language: str | None = None
    code: str | None = None
    exit_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None
    timed_out: bool | None = None
    # violation / warning / error / run_end
    kind: str | None = None
    message: str | None = None
    data: dict[str, Any] | None = None


class Message(BaseModel):
    """An OpenAI-style chat message; extra keys (tool_calls, name...) are kept."""

    model_config = ConfigDict(extra="allow")
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[Any] | None = None


class Conversation(_Strict):
    system_prompt: str
    messages: list[Message] = Field(default_factory=list)
