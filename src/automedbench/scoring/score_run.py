"""Score a run directory into detail_report.json. Used right after a run and by
`automedbench score RUN_DIR` (re-scoring from the saved workspace alone, no agent)."""
from __future__ import annotations

import json
import logging
from pathlib import Path

from ..data import DatasetPaths
from ..runs.layout import RunFiles, RunMeta, write_json_atomic
from ..runs.models import Conversation, DetailReport, JudgeInfo, StageResult, Violation
from ..runs.trace import read_trace
from ..tasks import get_task
from ..tracks import get_track
from .errors import detect_errors
from .judge.base import Judge, JudgeEvidence
from .overall import medal_and_rating, overall_score
from .rubric import load_rubric
from .stages import agentic_score, s4_inference, s5_submit
from .task_score import score_workspace

log = logging.getLogger(__name__)


class RunDirError(ValueError):
    pass


def load_meta(run_dir: Path) -> RunMeta:
    files = RunFiles(run_dir)
    if not files.meta.is_file():
        raise RunDirError(f"{run_dir}: not a run directory (no run.json)")
    try:
        return RunMeta.model_validate_json(files.meta.read_text())
    except ValueError as exc:
        raise RunDirError(f"{files.meta}: unreadable run metadata: {str(exc).splitlines()[0]}") from None


def _load_conversation(files: RunFiles) -> Conversation | None:
    try:
        return Conversation.model_validate_json(files.conversation.read_text())
    except (OSError, ValueError):
        return None


def run_judge(judge: Judge, evidence: JudgeEvidence) -> tuple[dict[str, StageResult | None], JudgeInfo]:
    """Call the judge; any failure of the judge itself makes S1..S3 null (infrastructure)."""
    info = JudgeInfo(backend=judge.backend, model=judge.model, version=judge.version)
    try:
        verdict = judge.judge(evidence)
    except Exception as exc:  # the judge is infrastructure: never fail the run for it
        log.warning("judge %s failed: %s", judge.backend, exc)
        verdict = {"s1": None, "s2": None, "s3": None}
    info.agreement = getattr(judge, "last_agreement", None)
    info.judge_incomplete = any(verdict.get(s) is None for s in ("s1", "s2", "s3"))
    return verdict, info


def score_run(run_dir: Path, judge: Judge | None = None) -> DetailReport:
    """Score (or re-score) a run. `judge=None` re-uses saved verdicts (judge.json) if present,
    else the offline heuristic judge."""
    run_dir = Path(run_dir)
    files = RunFiles(run_dir)
    meta = load_meta(run_dir)
    task = get_task(meta.run.task, extra=[Path(p) for p in meta.tasks_dirs])
    track = get_track(task.track)
    data = DatasetPaths(Path(meta.dataset_root))
    trace = read_trace(files.trace)
    options = task.track_options

    task_result, outcomes, aggregate = score_workspace(
        track, files.workspace, data.private, meta.case_ids, options, meta.lesion_positive)
    any_non_trivial = any(o.non_trivial for o in outcomes)
    stages: dict[str, StageResult | None] = {
        "s4": s4_inference(task_result),
        "s5": s5_submit(task_result, meta.run.submitted, any_non_trivial),
    }

    saved = _load_saved_verdict(files) if judge is None else None
    if saved is not None:
        verdict, judge_info = saved
    else:
        if judge is None:
            from .judge.heuristic import HeuristicJudge
            judge = HeuristicJudge()
        evidence = JudgeEvidence(task=task, tier=meta.run.tier, workspace=files.workspace, trace=trace,
                                 conversation=_load_conversation(files))
        verdict, judge_info = run_judge(judge, evidence)
        write_json_atomic(files.judge, {"judge": judge_info.model_dump(),
                                        "stages": {k: (v.model_dump() if v else None) for k, v in verdict.items()}})
    stages.update(verdict)

    rubric = load_rubric()
    agentic, active = agentic_score(stages, rubric)
    disqualified = meta.disqualified
    any_valid = any(c.valid for c in task_result.per_case)
    variant = options.get("variant", "organ_lesion")
    medal, rating = medal_and_rating(task.track, variant, aggregate, any_valid, disqualified)
    errors = detect_errors(trace, stages, task_result, submitted=meta.run.submitted,
                           end_reason=meta.run.end_reason, workspace=files.workspace,
                           all_trivial=any_valid and not any_non_trivial)
    flags = []
    if judge_info.judge_incomplete:
        flags.append("judge_incomplete")
    if meta.run.sandbox.startswith("local"):
        flags.append("no_isolation")
    if disqualified:
        flags.append("disqualified")
        stages = {s: StageResult(score=0.0, items=(r.items if r else {}),
                                 rationale="run disqualified (second sandbox violation): every score is 0")
                  for s, r in stages.items()}
        agentic, task_result = 0.0, task_result.model_copy(update={"score": 0.0})
    report = DetailReport(
        run=meta.run,
        stages={s: (stages[s] if stages.get(s) is not None else StageResult(
            score=None, rationale="not scored: judge unavailable (infrastructure)")) for s in rubric.stages},
        active_stages=active,
        agentic=agentic,
        task=task_result,
        overall=overall_score(agentic, task_result.score),
        medal=medal,
        rating=rating,
        errors=errors,
        violations=[Violation.model_validate({k: v for k, v in viol.items() if k in Violation.model_fields})
                    for viol in meta.violations],
        judge=judge_info,
        disqualified=disqualified,
        flags=flags,
    )
    write_json_atomic(files.report, report)
    return report


def _load_saved_verdict(files: RunFiles):
    if not files.judge.is_file():
        return None
    try:
        raw = json.loads(files.judge.read_text())
        info = JudgeInfo.model_validate(raw["judge"])
        verdict = {k: (StageResult.model_validate(v) if v else None) for k, v in raw["stages"].items()}
        return verdict, info
    except (ValueError, KeyError, TypeError):
        return None
