"""Score a run directory into detail_report.json. Used right after a run and by
`automedbench score RUN_DIR` (re-scoring from the saved workspace alone, no agent)."""
from __future__ import annotations

import json
import logging
from pathlib import Path

from ..data import DatasetPaths
from ..errors import InfrastructureError, UserError, one_line
from ..runs.layout import RunFiles, RunMeta, write_json_atomic
from ..runs.models import (
    INFRA_END_REASONS,
    Conversation,
    DetailReport,
    JudgeInfo,
    StageResult,
    Violation,
)
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


class RunDirError(UserError, ValueError):
    pass


class RunIncompleteError(RunDirError):
    """The run never finished (interrupted, or killed before it recorded an end): scoring
    it would present a half run as a normal one. `score --force` scores it, flagged."""


class JudgeFailed(InfrastructureError):
    """A re-judge could not judge every stage; the saved verdicts were kept (SPEC §7)."""

    detail = "judge_failed"


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
    error = None
    try:
        verdict = judge.judge(evidence)
    except Exception as exc:  # the judge is infrastructure: never fail the run for it
        log.warning("judge %s failed: %s", judge.backend, exc)
        verdict = {"s1": None, "s2": None, "s3": None}
        error = f"{type(exc).__name__}: {one_line(exc)}"
    info.agreement = getattr(judge, "last_agreement", None)
    info.judge_incomplete = any(verdict.get(s) is None for s in ("s1", "s2", "s3"))
    if info.judge_incomplete:
        info.error = (error or judge_failure_reason(judge) or "the judge returned no verdict")[:500]
    return verdict, info


def judge_failure_reason(judge: Judge) -> str | None:
    """The last problems a judge recorded (LLM: provider/parse errors; panel: per judge)."""
    errors = list(getattr(judge, "last_errors", None) or [])
    agreement = getattr(judge, "last_agreement", None) or {}
    errors += [f"{n}: {e}" for n, e in (agreement.get("errors") or {}).items()]
    for sub in getattr(judge, "judges", []) or []:
        errors += [f"{getattr(sub, 'name', sub.backend)}: {e}" for e in (getattr(sub, "last_errors", None) or [])]
    return "; ".join(one_line(Exception(e)) for e in errors[-3:]) or None


def score_run(run_dir: Path, judge: Judge | None = None, *, force: bool = False) -> DetailReport:
    """Score (or re-score) a run. `judge=None` re-uses saved verdicts (judge.json) if present,
    else the offline heuristic judge.

    An interrupted run (or one that never recorded its end) raises RunIncompleteError unless
    `force`, and is then flagged `interrupted`. A run ended by infrastructure is not judged
    and gets null scores (see null_for_infrastructure). With an explicit `judge` that fails
    on any stage while verdicts are saved, the saved verdicts and report are kept and
    JudgeFailed is raised."""
    run_dir = Path(run_dir)
    files = RunFiles(run_dir)
    meta = load_meta(run_dir)
    check_complete(meta, run_dir, force=force)
    infra_end = meta.run.end_reason in INFRA_END_REASONS
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
    if infra_end:   # nothing of the agent's workflow to judge, and no paid judge call for it
        verdict = {"s1": None, "s2": None, "s3": None}
        judge_info = JudgeInfo(backend="none", version="-", error="not judged: the run ended on an infrastructure fault")
    elif saved is not None:
        verdict, judge_info = saved
    else:
        if judge is None:
            from .judge.heuristic import HeuristicJudge
            judge = HeuristicJudge()
        evidence = JudgeEvidence(task=task, tier=meta.run.tier, workspace=files.workspace, trace=trace,
                                 conversation=_load_conversation(files))
        verdict, judge_info = run_judge(judge, evidence)
        if judge_info.judge_incomplete and _load_saved_verdict(files) is not None:
            raise JudgeFailed(f"{run_dir}: judge {judge_info.backend}"
                              f"{' (' + str(judge_info.model) + ')' if judge_info.model else ''} could not judge "
                              f"every stage ({judge_info.error}); the saved verdicts were kept")
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
                           all_trivial=any_valid and not any_non_trivial, end_detail=meta.run.end_detail)
    flags = []
    if meta.run.end_reason in ("interrupted", None):
        flags.append("interrupted")
    if judge_info.judge_incomplete and not infra_end:
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
    if infra_end:
        report = null_for_infrastructure(report)
    write_json_atomic(files.report, report)
    return report


def check_complete(meta: RunMeta, run_dir: Path, *, force: bool = False) -> None:
    """Refuse (RunIncompleteError) to score a run that never finished, unless forced."""
    reason = meta.run.end_reason
    if force or reason not in ("interrupted", None):
        return
    why = ("was interrupted" + (f" ({meta.run.end_detail})" if meta.run.end_detail else "")
           if reason == "interrupted" else "never recorded its end (killed, or still running)")
    raise RunIncompleteError(f"{run_dir}: the run {why}, so it is not scored; re-run it (a sweep does), "
                             "or pass --force to score what it left (flagged 'interrupted')")


def null_for_infrastructure(report: DetailReport) -> DetailReport:
    """SPEC §7: a run the sandbox or the provider ended is nobody's score. S1..S5, agentic,
    task, overall and rating are null, only infrastructure codes are kept, and the run is
    flagged `infra_error` so the leaderboard counts it beside the row, never in a mean. The
    per-case records stay as a diagnostic of what was on disk when the run ended."""
    why = f"not scored: the run ended on an infrastructure fault ({report.run.end_detail or report.run.end_reason})"
    return report.model_copy(update={
        "stages": {s: StageResult(score=None, rationale=why) for s in report.stages},
        "active_stages": [],
        "agentic": None,
        "task": report.task.model_copy(update={"score": None}),
        "overall": None,
        "medal": "none",
        "rating": None,
        # the judge was not asked (nothing to judge), so INFRA_JUDGE would be noise
        "errors": [e for e in report.errors if e.infrastructure and e.code != "INFRA_JUDGE"],
        "flags": ["infra_error"] + [f for f in report.flags if f not in ("infra_error", "judge_incomplete")],
    })


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
