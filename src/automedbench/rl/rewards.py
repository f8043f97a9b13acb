"""An episode's reward: a declared combination of the components the leaderboard publishes
(docs/rl.md "Rewards").

The components are read from the run's detail_report.json, which the same scoring and judge as
`automedbench run` wrote; nothing here scores anything. A `RewardSpec` is data (a dict or a
YAML file), never code:

    base: overall            # overall | task | agentic | stages
    stage_weights: {s3: 1}   # base "stages": weighted mean of the scored stages (default: the rubric's)
    error_penalties:         # subtracted once per fired error code of that name
      SANDBOX_VIOLATION: 0.5
    stage_rewards: false     # per-stage credit on the final step (a credit-assignment aid)

An episode the harness or the provider ended (infrastructure, interrupted) or whose judge could
not score a stage is marked `infra`: its reward is None, and a trainer drops it.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import UserError, first_field_error
from ..runs.models import LIMIT_END_REASONS, UNSCORED_END_REASONS, DetailReport, StageId
from ..runs.record import RunRecord
from ..scoring.error_codes import error_table
from ..scoring.rubric import load_rubric
from ..yamlfile import safe_load

STAGES: tuple[StageId, ...] = ("s1", "s2", "s3", "s4", "s5")
Base = Literal["overall", "task", "agentic", "stages"]
# a run flagged so had a stage the judge could not score: nobody's score (docs/faults.md)
INFRA_FLAGS = frozenset({"judge_incomplete"})


class RewardSpecError(UserError, ValueError):
    """A reward specification that cannot be used (the message names the field)."""


class RewardComponents(BaseModel):
    """The published numbers of one finished episode (its detail_report.json), in [0, 1]; None
    where the report has none (an infrastructure end, a stage the judge could not score)."""
    model_config = ConfigDict(extra="forbid")

    task: float | None
    s1: float | None
    s2: float | None
    s3: float | None
    s4: float | None
    s5: float | None
    agentic: float | None
    overall: float | None
    error_codes: list[str] = Field(default_factory=list, description="fired codes, one entry per firing")
    end_reason: str
    end_detail: str | None = None
    disqualified: bool = False
    infra: bool = Field(description="ended by the harness or provider, or not fully judged: drop it, never 0")
    run_dir: str | None = None

    def stage(self, sid: StageId) -> float | None:
        value: float | None = getattr(self, sid)
        return value

    @property
    def truncated(self) -> bool:
        """The episode ran out of a budget the task gives (turns, tokens, cost, wall time)."""
        return self.end_reason in LIMIT_END_REASONS

    @classmethod
    def from_report(cls, report: DetailReport, run_dir: Path | str | None = None) -> RewardComponents:
        stages = {s: (report.stages[s].score if s in report.stages else None) for s in STAGES}
        end = report.run.end_reason or "agent_finished"
        infra = end in UNSCORED_END_REASONS or bool(INFRA_FLAGS & set(report.flags)) or report.overall is None
        where = run_dir if run_dir is not None else report.run_dir
        return cls(task=report.task.score, **stages, agentic=report.agentic, overall=report.overall,
                   error_codes=[e.code for e in report.errors],
                   end_reason=end, end_detail=report.run.end_detail, disqualified=report.disqualified,
                   infra=infra, run_dir=str(where) if where is not None else None)

    @classmethod
    def from_run_dir(cls, run_dir: Path | str) -> RewardComponents:
        """The components of a scored run folder (what `automedbench score` wrote), read through
        RunRecord (docs/run_record.md "Reading a run folder"): a report that does not read is
        its RunFileError (a UserError), one line naming the file."""
        report = RunRecord.open(run_dir).report
        if report is None:
            raise UserError(f"{run_dir}: no detail_report.json (run `automedbench score {run_dir}`)")
        return cls.from_report(report, run_dir)


class StageReward(BaseModel):
    """Stage `stage`'s share of the agentic score, placed on the last turn that worked in it."""
    model_config = ConfigDict(extra="forbid")
    stage: StageId
    turn: int | None = Field(description="the last turn labelled with this stage; None: no call was")
    value: float


class RewardSpec(BaseModel):
    """Which published components make the reward (module doc; docs/rl.md "Rewards")."""
    model_config = ConfigDict(extra="forbid")

    base: Base = "overall"
    stage_weights: dict[StageId, float] | None = None
    error_penalties: dict[str, float] = Field(default_factory=dict)
    stage_rewards: bool = False

    @field_validator("stage_weights")
    @classmethod
    def _weights(cls, v: dict[StageId, float] | None) -> dict[StageId, float] | None:
        if v is not None and (any(w < 0 for w in v.values()) or sum(v.values()) <= 0):
            raise ValueError("weights must be >= 0 with a positive sum")
        return v

    @field_validator("error_penalties")
    @classmethod
    def _codes(cls, v: dict[str, float]) -> dict[str, float]:
        known = set(error_table()["codes"])
        unknown = sorted(set(v) - known)
        if unknown:
            raise ValueError(f"unknown error code(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return v

    @model_validator(mode="after")
    def _weights_need_stages(self) -> RewardSpec:
        if self.stage_weights is not None and self.base != "stages":
            raise ValueError(f"stage_weights is given but base is {self.base!r}: set base: stages")
        return self

    @classmethod
    def load(cls, source: RewardSpec | Mapping[str, Any] | Path | str | None) -> RewardSpec:
        """A spec from a dict, a YAML file (path), or itself; None: the default (overall)."""
        if source is None:
            return cls()
        if isinstance(source, RewardSpec):
            return source
        where = "reward spec"
        if isinstance(source, (str, Path)):
            where = str(source)
            try:
                data = safe_load(Path(source).read_text(encoding="utf-8"))
            except OSError as exc:
                raise RewardSpecError(f"{where}: cannot read: {exc}") from None
        else:
            data = dict(source)
        if not isinstance(data, Mapping):
            raise RewardSpecError(f"{where}: expected a mapping of reward options")
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            raise RewardSpecError(f"{where}: {first_field_error(exc)}") from None

    def weights(self) -> dict[StageId, float]:
        rubric = load_rubric().weights()
        return dict(self.stage_weights) if self.stage_weights is not None else \
            {s: float(rubric[s]) for s in STAGES if s in rubric}

    def base_value(self, c: RewardComponents) -> float | None:
        if self.base != "stages":
            value: float | None = getattr(c, self.base)
            return value
        weights = self.weights()
        scored = {s: v for s in weights if (v := c.stage(s)) is not None}
        total = sum(weights[s] for s in scored)
        return sum(weights[s] * v for s, v in scored.items()) / total if total > 0 else None

    def reward(self, c: RewardComponents) -> float | None:
        """The reward, or None for an infra episode (drop it: never 0)."""
        if c.infra:
            return None
        value = self.base_value(c)
        if value is None:
            return None
        return value - sum(self.error_penalties.get(code, 0.0) for code in c.error_codes)

    def stage_credit(self, c: RewardComponents, run_dir: Path | str) -> list[StageReward]:
        """Per-stage credit (a credit-assignment aid, not the judged reward): each scored
        stage's w_k * s_k / sum(w) on the last turn whose calls were labelled with it, read
        from the run's trace. Their sum is the agentic score when every stage was scored."""
        if c.infra:
            return []
        last: dict[str, int] = {}
        for event in RunRecord(run_dir).trace:   # no trace (or no folder): no turns to place credit on
            if event.type in ("tool_call", "submit") and event.stage and event.turn is not None:
                last[event.stage] = event.turn
        weights = load_rubric().weights()
        total = sum(weights.values())
        return [StageReward(stage=s, turn=last.get(s), value=weights[s] * v / total)
                for s in STAGES if s in weights and (v := c.stage(s)) is not None]


def load_reward_spec(source: RewardSpec | Mapping[str, Any] | Path | str | None) -> RewardSpec:
    return RewardSpec.load(source)
