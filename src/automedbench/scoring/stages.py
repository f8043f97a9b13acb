"""Deterministic stages S4 and S5, and the weighted agentic score with the null policy.

S4 = 0.5 × completion_rate + 0.5 × [every submitted output passes the format check]
S5 = 0.5 × [submit_results called and ≥ 1 case valid and non-trivial] + 0.5 × [format valid]
Agentic = Σ w_k s_k / Σ w_k over stages whose score is not null (docs/scoring.md#agentic-score-and-the-null-policy).
"""
from __future__ import annotations

from collections.abc import Mapping

from ..runs.models import StageResult, TaskResult
from .rubric import Rubric


def s4_inference(task: TaskResult) -> StageResult:
    # a case the agent tried (valid or not); reference errors are excluded (harness faults)
    any_submitted = any(c.status in ("ok", "invalid") for c in task.per_case)
    fmt = 1.0 if (any_submitted and task.format_valid) else 0.0
    items = {"s4_completion": round(task.completion_rate, 6), "s4_format": fmt}
    return StageResult(score=0.5 * task.completion_rate + 0.5 * fmt, items=items,
                       rationale=f"completion {task.completion_rate:.2%}; all submitted outputs valid: {bool(fmt)}")


def s5_submit(task: TaskResult, submitted: bool, any_non_trivial: bool) -> StageResult:
    called = 1.0 if (submitted and any_non_trivial) else 0.0
    fmt = 1.0 if task.format_valid else 0.0
    why = ("submit_results called" if submitted else "submit_results NOT called") + \
          ("; at least one valid non-trivial case" if any_non_trivial else "; no valid non-trivial case")
    return StageResult(score=0.5 * called + 0.5 * fmt, items={"s5_called": called, "s5_format": fmt},
                       rationale=f"{why}; submission format valid: {bool(fmt)}")


def agentic_score(stages: Mapping[str, StageResult | None], rubric: Rubric) -> tuple[float | None, list[str]]:
    """The weighted mean of the stages that have a score (a null stage is left out, never 0)."""
    weights = rubric.weights()
    scores = {s: score for s in weights if (stage := stages.get(s)) is not None and (score := stage.score) is not None}
    total = sum(weights[s] for s in scores)
    if not scores or total == 0:
        return None, list(scores)
    return sum(weights[s] * score for s, score in scores.items()) / total, list(scores)
