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
from ..tracks.base import ScoringContext
from .errors import LOGIC_DROP, detect_errors
from .judge.base import Judge, JudgeEvidence
from .overall import medal_and_rating, overall_score, resolve_bands
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
        verdict = {s: None for s in load_rubric().judged}
    info.agreement = getattr(judge, "last_agreement", None)
    info.judge_incomplete = any(verdict.get(s) is None for s in load_rubric().judged)
    return verdict, info


def score_run(run_dir: Path, judge: Judge | None = None) -> DetailReport:
    """Score (or re-score) a run. `judge=None` re-uses saved verdicts (judge.json) if present,
    else the offline heuristic judge."""
    run_dir = Path(run_dir)
    files = RunFiles(run_dir)
    meta = load_meta(run_dir)
    task = get_task(meta.run.task, extra=[Path(p) for p in meta.tasks_dirs])
    track = task.track_impl
    data = DatasetPaths(Path(meta.dataset_root))
    trace = read_trace(files.trace)
    changed = task_definition_changed(meta, task)
    if changed:
        log.warning("%s: %s", run_dir, changed)

    task_result, outcomes = score_workspace(
        track, files.workspace, data.private, expected_cases(meta, data), task.options,
        scoring_context(files))
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
    bands = resolve_bands(task, data.root)
    task_result.medal_bands = bands.model_dump()
    medal, rating = medal_and_rating(bands, {"score": task_result.score, **task_result.aggregate_metrics},
                                     any_valid, disqualified)
    errors = detect_errors(trace, stages, task_result, submitted=meta.run.submitted,
                           end_reason=meta.run.end_reason, workspace=files.workspace,
                           all_trivial=any_valid and not any_non_trivial,
                           logic_drop=getattr(task.track_impl, "logic_drop", LOGIC_DROP))
    flags = []
    if judge_info.judge_incomplete:
        flags.append("judge_incomplete")
    if meta.run.sandbox.startswith("local"):
        flags.append("no_isolation")
    if task_result.excluded_cases:
        flags.append("reference_error")
    if changed:
        flags.append("task_changed")
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
        versions=_versions(meta, rubric.version),
    )
    write_json_atomic(files.report, report)
    return report


def expected_cases(meta: RunMeta, data: DatasetPaths) -> list[dict]:
    """The manifest's entry for each expected case (metadata the track's aggregate needs), in
    the run's order; a case the manifest no longer lists keeps just its id."""
    try:
        by_id = {str(c["case_id"]): c for c in data.load_manifest().get("cases", [])}
    except Exception:  # an unreadable manifest: score with ids only (cases then lack metadata)
        by_id = {}
    return [{k: v for k, v in by_id.get(cid, {"case_id": cid}).items() if k != "files"} for cid in meta.case_ids]


def scoring_context(files: RunFiles) -> ScoringContext:
    return ScoringContext(cache_dir=files.dir / ".scoring_cache")


def task_hash(snapshot: dict) -> str:
    import hashlib
    return hashlib.sha256(json.dumps(snapshot, sort_keys=True, default=str).encode()).hexdigest()


def task_definition_changed(meta: RunMeta, task) -> str:
    """'' when the task is as it was at run time; else a one-line note (recorded as a flag)."""
    if not meta.task_hash:
        return ""
    now = task_hash(task.snapshot())
    if now != meta.task_hash:
        return (f"the definition of task {task.id!r} changed since this run (hash {meta.task_hash[:12]} → "
                f"{now[:12]}); scored with the current definition")
    return ""


def _versions(meta: RunMeta, rubric_version: int) -> dict[str, str]:
    from .. import __version__
    out = {"harness_scored": __version__, "rubric": str(rubric_version)}
    if meta.harness_version:
        out["harness_run"] = meta.harness_version
    if meta.task_hash:
        out["task_hash"] = meta.task_hash[:16]
    return out


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
