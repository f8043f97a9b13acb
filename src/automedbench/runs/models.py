"""Typed records of a run (docs/scoring.md#what-a-run-records). Every saved artifact has a model here and a JSON Schema in schemas/.

`DetailReport` is a public contract: change its keys only with a SCHEMA_VERSION bump.
"""
from __future__ import annotations

from typing import Any, Literal, TypeGuard, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_serializer, model_validator

from ..tracks.base import ProfileScore  # noqa: F401  (one definition: a track returns it, the report records it)

# 1.1 (additive: every 1.0 report still loads): case status, aggregate metrics, excluded
# cases, versions; end_reason is an enum with "infra_error" and "interrupted"; run.end_detail
# and run.setup_time_s; task.score and rating may be null (infra-ended runs).
# 1.2 (additive): task.profile_scores (docs/scoring-profiles.md).
# 1.3 (additive): stages.<s>.evidence, the calls and files each item verdict rests on (docs/judge.md).
# 1.6 (additive): trace effects.read_back (files a call wrote and then read back, the order
# inside one call) and execution.output_checks (the harness's check of each output unit as it
# was written, with its content facts): docs/judge.md "Per-output checks".
# 1.7 (additive): trace effects.order, the call's writes, reads and read-backs in the order they
# happened (docs/judge.md "Order inside a call").
# 1.8 (additive): a written file's op may be "transient": the call made it and removed it before
# it ended (a pilot in a folder the script then cleaned), docs/sandbox.md "Observed effects".
# 1.9 (additive): trace effects.opens_held, whether every open in the workspace waited until its
# folder was watched, docs/sandbox.md "Opens held until their folder is watched".
# 1.10 (additive): run.scaffold, which agent scaffold drove the run (docs/agents.md "Scaffold and
# model"); null in an older report, read as RunRecord derives it.
SCHEMA_VERSION = "1.10"

StageId = Literal["s1", "s2", "s3", "s4", "s5"]

# Why a run ended (docs/faults.md#end-reasons). The agent's own endings, then the two that are nobody's score:
#   infra_error  the sandbox could not start or died, the provider stayed down (detail in
#                run.end_detail): S1..S5 and task are null, the run is left out of means;
#   interrupted  the user stopped it (Ctrl-C, SIGTERM): `score` refuses it unless forced.
# provider_error / provider_unavailable / harness_error are what schema 1.0 recorded for
# infrastructure endings; they stay valid so old reports load, and are read as infra_error.
EndReason = Literal[
    "submitted", "agent_finished", "max_turns", "wall_time", "max_tokens", "max_cost",
    "disqualified", "agent_crash", "infra_error", "interrupted",
    "provider_error", "provider_unavailable", "harness_error",
]
def is_end_reason(value: object) -> TypeGuard[EndReason]:
    """Whether `value` is one of the end reasons above (an agent may report one it made up)."""
    return value in get_args(EndReason)


# Every set of end reasons the harness acts on is named here, from the one enumeration above
# (tests/test_layers.py checks each is a subset of EndReason).
# the harness, the sandbox or the provider failed: never the agent's fault
INFRA_END_REASONS: frozenset[EndReason] = frozenset({"infra_error", "provider_error", "provider_unavailable",
                                                     "harness_error"})
# nobody's score: left out of every mean and count of the agent's results, re-run by a sweep
UNSCORED_END_REASONS: frozenset[EndReason] = INFRA_END_REASONS | {"interrupted"}
# the agent ran out of a budget the task gave it (BUDGET_EXHAUSTED)
BUDGET_END_REASONS: frozenset[EndReason] = frozenset({"max_turns", "max_tokens", "max_cost"})
# the run stopped at a limit the task gave (a budget, or its wall time): an RL episode truncated
LIMIT_END_REASONS: frozenset[EndReason] = BUDGET_END_REASONS | {"wall_time"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# The scaffold of each agent kind (docs/agents.md "Scaffold and model"): the agent config's `kind`
# (run.json agent_config) names the loop that ran the turns. kind cli runs mini-swe-agent's `mini`,
# the one CLI supported today (docs/agents.md "CLI agents behind the gateway").
SCAFFOLD_OF_KIND = {
    "llm": "automedbench-loop",
    "scripted": "scripted",
    "mini-swe-agent": "mini-swe-agent",
    "cli": "cli:mini",
    "inspect-ai": "inspect-ai",
    "external": "external",
}
UNKNOWN_SCAFFOLD = "unknown"


def scaffold_of(agent_config: dict[str, Any] | None) -> str:
    """The scaffold that drove a run with this effective agent configuration (run.json
    `agent_config`): SCAFFOLD_OF_KIND of its kind, Inspect AI's with its solver
    ("inspect-ai:react"), an unknown kind as itself, "unknown" without a configuration."""
    if not isinstance(agent_config, dict):
        return UNKNOWN_SCAFFOLD
    kind = agent_config.get("kind")
    if not isinstance(kind, str) or not kind:
        return UNKNOWN_SCAFFOLD
    scaffold = SCAFFOLD_OF_KIND.get(kind, kind)
    solver = agent_config.get("solver")
    if kind == "inspect-ai" and isinstance(solver, str) and solver:
        scaffold = f"{scaffold}:{solver}"
    return scaffold


class RunInfo(_Strict):
    run_id: str
    agent: str
    model: str | None = None
    scaffold: str | None = Field(None, description="the agent scaffold that drove the run (docs/agents.md "
                                                   "\"Scaffold and model\"): automedbench-loop, scripted, "
                                                   "mini-swe-agent, cli:<command>, inspect-ai[:<solver>], "
                                                   "external; null in a record before schema 1.10 (RunRecord "
                                                   "derives it from run.json's agent_config, else unknown)")
    task: str
    track: str
    tier: str
    started_at: str
    wall_time_s: float = Field(0.0, description="the agent's time: from its sandbox being ready to the run's end")
    setup_time_s: float = Field(0.0, description="opening the sandbox, incl. a one-time agent-runtime build")
    turns: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    submitted: bool = False
    sandbox: str = "local"
    end_reason: EndReason | None = None
    end_detail: str | None = Field(None, description="cause behind the end reason, e.g. provider_unavailable, "
                                                    "sandbox_died, SIGINT")
    config_hash: str | None = Field(None, description="hash of the agent's effective configuration (endpoint, "
                                                     "model, sampling, limits): runs with different ones "
                                                     "are different leaderboard rows")


class ItemEvidence(_Strict):
    """What one item verdict rests on (docs/judge.md#item-evidence): the trace's call indices
    and the file paths a reader can check, and the item's own reason. Empty calls and files
    with a reason say what was absent."""
    calls: list[int] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    why: str = ""


class StageResult(_Strict):
    score: float | None = None
    items: dict[str, float] = Field(default_factory=dict)
    rationale: str = ""
    # item id -> its evidence; empty for stages decided without a judge (S4, S5) and reports before 1.3
    evidence: dict[str, ItemEvidence] = Field(default_factory=dict)


CaseStatusName = Literal["ok", "missing", "invalid", "reference_error"]


class CaseResult(_Strict):
    case_id: str
    # decided by the core, never parsed from `reason` (schema 1.0 reports lack it: derived on load)
    status: CaseStatusName = "ok"
    valid: bool
    reason: str = ""
    metrics: dict[str, float | None] = Field(default_factory=dict)
    flags: list[str] = Field(default_factory=list)   # track flags, e.g. "placeholder" (error codes)

    @model_validator(mode="before")
    @classmethod
    def _status_from_v1_0(cls, data: Any) -> Any:
        if isinstance(data, dict) and "status" not in data:
            reason = str(data.get("reason", ""))
            data = {**data, "status": "ok" if data.get("valid") else
                    "missing" if reason.startswith("missing") else
                    "reference_error" if reason.startswith("reference unreadable") else "invalid"}
        return data


class TaskResult(_Strict):
    score: float | None = 0.0   # null only for a run ended by infrastructure
    metric_name: str
    completion_rate: float = 0.0
    format_valid: bool = False
    per_case: list[CaseResult] = Field(default_factory=list)
    unexpected_cases: list[str] = Field(default_factory=list)
    # the track's named dataset-level metrics (per-class AP, corpus text components, …)
    aggregate_metrics: dict[str, float | None] = Field(default_factory=dict)
    components: list[str] = Field(default_factory=list)        # metric components actually used
    component_notes: dict[str, str] = Field(default_factory=dict)  # why a component is missing
    excluded_cases: list[str] = Field(default_factory=list)    # reference errors (harness faults)
    medal_bands: dict[str, Any] | None = None                  # the bands the medal was read from
    # the task score under each scoring profile: "ours" (= score) and "reference" (the published
    # reference's definition, or null with the reason); docs/scoring-profiles.md
    profile_scores: dict[str, ProfileScore] = Field(default_factory=dict)


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
    processes: list[dict[str, Any]] | None = Field(
        None, description="the processes that opened the decoy (pid, pid_in_sandbox, cmdline, of_call), named "
                          "by fanotify (a root harness; docs/sandbox.md \"Whose decoy accesses\"); schema 1.5")


class JudgeInfo(_Strict):
    backend: str = "heuristic"
    model: str | None = None
    version: str = "1"
    judge_incomplete: bool = False
    agreement: dict[str, Any] | None = None
    error: str | None = None   # why a stage could not be judged (one line), when one could not


class DetailReport(_Strict):
    schema_version: str = SCHEMA_VERSION
    run: RunInfo
    stages: dict[StageId, StageResult]
    active_stages: list[StageId]
    agentic: float | None
    task: TaskResult
    overall: float | None
    medal: Literal["good", "okay", "none"] = "none"
    rating: Literal["A", "B", "C", "F"] | None = "F"   # null: not rated (infra-ended run)
    errors: list[ErrorCode] = Field(default_factory=list)
    violations: list[Violation] = Field(default_factory=list)
    judge: JudgeInfo = Field(default_factory=JudgeInfo)
    disqualified: bool = False
    flags: list[str] = Field(default_factory=list)
    # harness, rubric and task-definition versions this report was scored with
    versions: dict[str, str] = Field(default_factory=dict)
    # where the report lives (set by score_run / run_one; not part of the saved JSON)
    _run_dir: Any = PrivateAttr(default=None)

    @property
    def run_dir(self) -> Any:
        """The run directory this report was scored from (a Path), or None."""
        return self._run_dir


# ---- trace.jsonl: one event per line -------------------------------------------------

EventType = Literal[
    "run_start", "model_call", "tool_call", "execution", "stage", "violation",
    "warning", "submit", "error", "run_end",
]


class WrittenFile(_Strict):
    """A file an execution created or modified (docs/sandbox.md "Observed effects")."""

    path: str = Field(description="inside path, as the agent sees it, e.g. /workspace/outputs/case_000/x.npy")
    op: Literal["created", "modified", "transient"] = Field(
        description="transient (schema 1.8): made by the call and removed before it ended")
    size: int = Field(description="bytes, after the call (transient: when its last write closed; 0 unknown)")
    sha256: str | None = Field(None, description="content hash after the call; null above the hashing caps "
                                                 "(256 MiB per file, 1 GiB per call) and for a transient file")


class NetBytes(_Strict):
    bytes_in: int
    bytes_out: int


class OrderStep(_Strict):
    """One step of a call's `effects.order` (docs/sandbox.md "Order inside a call")."""

    op: Literal["w", "r", "b"] = Field(description="w: a write; r: a read of a file listed in `read`; b: a read "
                                                   "back of a file the call wrote")
    path: str
    out: int = Field(0, description="bytes of stdout the harness had read when the step was seen")
    err: int = Field(0, description="bytes of stderr the harness had read when the step was seen")
    size: int | None = Field(None, description="a write's size when it closed, where the recorder saw the close "
                                               "in time")

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, data: Any) -> Any:
        # the first 1.7 records wrote [op, path] or [op, path, size], with no output offsets
        if isinstance(data, (list, tuple)) and len(data) in (2, 3):
            return {"op": data[0], "path": data[1], "size": data[2] if len(data) == 3 else None}
        return data


class Effects(_Strict):
    """What one execution did to the files the agent sees, observed from the host (inotify on
    the host side of the sandbox's mounts, never reported from inside): docs/sandbox.md."""

    written: list[WrittenFile] = Field(default_factory=list, description="created/modified files, first-seen order")
    deleted: list[str] = Field(default_factory=list, description="files that existed before the call and not after")
    read: list[str] = Field(default_factory=list,
                            description="files under /data/public and /workspace opened and not written by "
                                        "this call, deduplicated, first-open order")
    read_back: list[str] = Field(default_factory=list,
                                 description="files this call wrote and then opened again read-only, in the "
                                             "same call (a script that writes a file and reads it back)")
    order: list[OrderStep] | None = Field(
        None, description="the call's file steps in the order they happened (schema 1.7); absent when events "
                          "were lost or there were more than 4,000 steps")
    net: NetBytes | None = Field(None, description="bytes through the sandbox's interface; null with the "
                                                   "network off")
    truncated: bool = Field(False, description="a list hit its cap (2,000 entries) or events were lost")
    reads_shared: bool = Field(False, description="/data/public was the dataset's shared directory (above the "
                                                  "copy cap), so `read` may hold another sandbox's reads of it")
    reads_attributed: bool | None = Field(None, description="`read` holds only files this sandbox's processes "
                                          "opened (fanotify named the opener); false: any host process's opens "
                                          "too, and the judge credits none of them; null: an older record")
    opens_held: bool | None = Field(None, description="every open of the call in the workspace waited until "
                                    "its folder was watched (schema 1.9): a folder the call made has all its "
                                    "steps; false: what the call did in a new folder before its watch may be "
                                    "missing; null: an older record")
    recorder: str = Field("inotify", description="how the effects were observed")

    @model_serializer(mode="wrap")
    def _keep_nulls(self, handler: Any) -> dict[str, Any]:
        # trace lines are written with exclude_none; an effects record keeps its nulls
        # (`net: null`, `sha256: null`) so every reader sees the same keys
        data = handler(self)
        data.setdefault("net", None)
        for entry, model in zip(data.get("written", []), self.written):
            entry.setdefault("sha256", model.sha256)
        return data


class OutputCheck(_Strict):
    """The harness's own check of one output unit right after the call that wrote it: the track's
    contract and plausibility check, no reference values (docs/judge.md "Per-output checks")."""

    path: str = Field(description="inside path of the unit: a case folder (wherever written) or a cohort file")
    case_id: str | None = Field(None, description="the case a per-case unit belongs to")
    files: dict[str, str | None] = Field(default_factory=dict, description="inside path -> sha256 checked")
    valid: bool = Field(description="the track's per-case check passed (shape, grid, value set, boxes in the image)")
    non_trivial: bool | None = Field(None, description="valid and not trivial (an empty mask, a flat image)")
    copy_of_input: bool = Field(False, description="a file holds the same bytes as one of the case's inputs")
    implausible: bool = Field(False, description="valid, but the track sees a problem a look would show (values "
                                                 "not in the input's units, …): Track.plausibility")
    problem: str = Field("", description="why it is invalid, trivial or a copy; empty when none")
    facts: dict[str, dict[str, Any]] = Field(default_factory=dict,
                                             description="inside path -> content facts {kind, facts} as written")

    @property
    def passed(self) -> bool:
        """Valid, not trivial, not a copy of the input, nothing implausible."""
        return self.valid and self.non_trivial is not False and not self.copy_of_input and not self.implausible


class TraceEvent(_Strict):
    """One line of trace.jsonl. `type` says which optional fields are filled."""

    type: EventType
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
    effects: Effects | None = Field(None, description="execution: observed file/network effects "
                                                      "(absent in traces written before they were recorded)")
    output_checks: list[OutputCheck] | None = Field(None, description="execution: the harness's check of each "
                                                    "output unit the call wrote (docs/judge.md \"Per-output checks\")")
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
