"""Factories for valid DetailReport objects and run directories on disk (the report tests use
them through conftest fixtures; bench/sweep_throughput.py imports them)."""
from __future__ import annotations

from pathlib import Path

from automedbench.runs.models import (
    CaseResult, DetailReport, ErrorCode, JudgeInfo, RunInfo, StageResult, TaskResult,
)

WEIGHTS = {"s1": 0.25, "s2": 0.15, "s3": 0.35, "s4": 0.15, "s5": 0.10}


def build_report(run_id: str = "r1", *, agent: str = "agent-a", task: str = "kits-demo",
                 tier: str = "lite", stages: dict | None = None, task_score: float = 0.5,
                 agentic: float | None | str = "auto", overall: float | None | str = "auto",
                 submitted: bool = True, valid_cases: int = 2, invalid_cases: int = 0,
                 sandbox: str = "bwrap", turns: int = 10, wall_time_s: float = 100.0,
                 tokens_in: int = 1000, tokens_out: int = 500, cost_usd: float = 0.1,
                 errors: list[dict] | None = None, disqualified: bool = False,
                 judge_incomplete: bool = False, medal: str = "okay", rating: str = "B",
                 model: str | None = "m-1", end_reason: str = "submitted") -> DetailReport:
    """A schema-valid report. Agentic/overall are computed from the stages unless given."""
    stages = stages if stages is not None else {"s1": 1.0, "s2": 1.0, "s3": 0.5, "s4": 1.0, "s5": 1.0}
    active = [s for s, v in stages.items() if v is not None]
    if agentic == "auto":
        w = sum(WEIGHTS[s] for s in active)
        agentic = sum(WEIGHTS[s] * stages[s] for s in active) / w if w else None
    if overall == "auto":
        overall = None if agentic is None else 0.5 * agentic + 0.5 * task_score
    cases = ([CaseResult(case_id=f"c{i}", valid=True, metrics={"dice": 0.8}) for i in range(valid_cases)]
             + [CaseResult(case_id=f"x{i}", valid=False, reason="missing") for i in range(invalid_cases)])
    return DetailReport(
        run=RunInfo(run_id=run_id, agent=agent, model=model, task=task, track="segmentation",
                    tier=tier, started_at="2026-11-26T00:00:00Z", wall_time_s=wall_time_s,
                    turns=turns, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost_usd,
                    submitted=submitted, sandbox=sandbox, end_reason=end_reason),
        stages={s: StageResult(score=stages.get(s)) for s in ("s1", "s2", "s3", "s4", "s5")},
        active_stages=active, agentic=agentic,
        task=TaskResult(score=task_score, metric_name="dice",
                        completion_rate=valid_cases / max(1, valid_cases + invalid_cases),
                        format_valid=valid_cases > 0, per_case=cases),
        overall=overall, medal=medal, rating=rating,
        errors=[ErrorCode(**e) for e in (errors or [])],
        judge=JudgeInfo(judge_incomplete=judge_incomplete),
        disqualified=disqualified,
        flags=["judge_incomplete"] if judge_incomplete else [],
    )


def write_run(root: Path, rep: DetailReport, name: str | None = None) -> Path:
    """Write `rep` as <root>/<name or run_id>/detail_report.json; returns the run dir."""
    d = Path(root) / (name or rep.run.run_id)
    d.mkdir(parents=True, exist_ok=True)
    (d / "detail_report.json").write_text(rep.model_dump_json(indent=2), encoding="utf-8")
    return d
