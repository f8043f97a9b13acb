"""Score a run directory into detail_report.json. Used right after a run and by
`automedbench score RUN_DIR` (re-scoring from the saved workspace alone, no agent)."""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any, Protocol

from .. import __version__
from ..data import DatasetPaths
from ..errors import InfrastructureError, ScoringContainerUnavailable, UserError, one_line
from ..llm.answer_judge import get_answer_judge
from ..runs.layout import RunFiles, RunMeta, write_json_atomic
from ..runs.models import (
    INFRA_END_REASONS,
    Conversation,
    DetailReport,
    JudgeInfo,
    StageResult,
    TraceEvent,
    Violation,
)
from ..runs.record import RunFileError, RunRecord
from ..tasks import Task, get_task
from ..tracks.base import ScoringContext
from .error_codes import detect_errors
from .experiments import load_experiments
from .judge.base import BareJudge, Judge, JudgeEvidence, as_judge
from .judge.heuristic import HeuristicJudge
from .overall import bands_above_chance, medal_and_rating, overall_score, resolve_bands
from .rubric import load_rubric
from .stages import agentic_score, s4_inference, s5_submit
from .pictures import write_pictures
from .task_score import score_workspace

log = logging.getLogger(__name__)


class RunDirError(UserError, ValueError):
    pass


class RunIncompleteError(RunDirError):
    """The run never finished (interrupted, or killed before it recorded an end): scoring
    it would present a half run as a normal one. `score --force` scores it, flagged."""


class JudgeFailed(InfrastructureError):
    """A re-judge could not judge every stage; the saved verdicts were kept (docs/faults.md)."""

    detail = "judge_failed"


def load_meta(run_dir: Path) -> RunMeta:
    """run.json, through RunRecord (docs/run_record.md "Reading a run folder"); RunDirError when
    the folder is no run or its run.json does not read."""
    try:
        meta = RunRecord.open(run_dir).meta
    except RunFileError as exc:
        if exc.kind == "no_run_dir":
            raise RunDirError(f"{run_dir}: not a run directory (no run.json)") from None
        raise RunDirError(f"{exc.path}: unreadable run metadata: {exc.why}") from None
    if meta is None:
        raise RunDirError(f"{run_dir}: not a run directory (no run.json)")
    return meta


def _load_conversation(files: RunFiles) -> Conversation | None:
    try:
        return RunRecord(files.dir).conversation
    except RunFileError:
        return None


def run_judge(judge: Judge, evidence: JudgeEvidence) -> tuple[dict[str, StageResult | None], JudgeInfo]:
    """Call the judge; any failure of the judge itself makes S1..S3 null (infrastructure)."""
    info = JudgeInfo(backend=judge.backend, model=judge.model, version=judge.version)
    error = None
    try:
        verdict = judge.judge(evidence)
    except Exception as exc:  # the judge is infrastructure: never fail the run for it
        log.warning("judge %s failed: %s", judge.backend, exc)
        verdict = {s: None for s in load_rubric().judged}
        error = f"{type(exc).__name__}: {one_line(exc)}"
    info.agreement = judge.last_agreement
    info.judge_incomplete = any(verdict.get(s) is None for s in load_rubric().judged)
    if info.judge_incomplete:
        info.error = (error or judge_failure_reason(judge) or "the judge returned no verdict")[:500]
    return verdict, info


def judge_failure_reason(judge: Judge) -> str | None:
    """The last problems a judge recorded (LLM: provider/parse errors; panel: per judge)."""
    errors = list(judge.last_errors)
    agreement = judge.last_agreement or {}
    errors += [f"{n}: {e}" for n, e in (agreement.get("errors") or {}).items()]
    for sub in judge.judges:
        errors += [f"{sub.name or sub.backend}: {e}" for e in sub.last_errors]
    return "; ".join(one_line(Exception(e)) for e in errors[-3:]) or None


class ContainerScorer(Protocol):
    """Scores a docker run in a scoring container and returns what it wrote ({file name: text})
    and the container's name (the report's `versions` must name it); raises
    ScoringContainerUnavailable saying why not. The API hands in the sandbox's
    (sandbox/docker/backend.py: score_in_container): scoring never imports the sandbox."""

    def __call__(self, run_dir: Path, *, sandbox: str, dataset_root: Path,
                 tasks_dirs: list[Path]) -> tuple[dict[str, str], str]: ...


def score_run(run_dir: Path, judge: BareJudge | None = None, *, force: bool = False, answer_judge: str | None = None,
              agent_configs: list[Path] | None = None, out_dir: Path | None = None,
              container_scorer: ContainerScorer | None = None, task: Task | None = None) -> DetailReport:
    """Score (or re-score) a run. `judge=None` re-uses saved verdicts (judge.json) if present,
    else the offline heuristic judge. `answer_judge` (a registry name) overrides the LLM answer
    judge recorded in run.json for metrics that use one (ScoringContext).

    An interrupted run (or one that never recorded its end) raises RunIncompleteError unless
    `force`, and is then flagged `interrupted`. A run ended by infrastructure is not judged
    and gets null scores (see null_for_infrastructure). With an explicit `judge` that fails
    on any stage while verdicts are saved, the saved verdicts and report are kept and
    JudgeFailed is raised.

    A run made in the docker sandbox is scored in a scoring container by `container_scorer`
    (no network, the run read-only, the only place its private references are mounted;
    api.py hands in sandbox/docker/backend.py's), and in this process -- loudly, flagged
    `scored_outside_container` -- when that cannot be done or none was handed in. `out_dir`: score here and write the report (and judge.json) there instead of
    `run_dir` (what the scoring container does). `task`: the task the run was prepared with
    (the lifecycle hands it in, so a task id is resolved once per run, docs/architecture.md
    "The walk"); None: resolved from run.json, and a definition changed since the run is flagged."""
    run_dir = Path(run_dir)
    meta = load_meta(run_dir)
    check_complete(meta, run_dir, force=force)
    whole = as_judge(judge) if judge is not None else None   # a plug-in's missing members get defaults
    if out_dir is None and meta.run.sandbox.startswith("docker"):
        return _score_docker_run(run_dir, meta, whole, answer_judge=answer_judge, agent_configs=agent_configs,
                                 container_scorer=container_scorer, task=task)
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    return _score_here(run_dir, meta, whole, answer_judge=answer_judge, agent_configs=agent_configs,
                       out=RunFiles(out_dir) if out_dir is not None else RunFiles(run_dir), task=task)


def _score_docker_run(run_dir: Path, meta: RunMeta, judge: Judge | None, *, answer_judge: str | None,
                      agent_configs: list[Path] | None, container_scorer: ContainerScorer | None,
                      task: Task | None) -> DetailReport:
    """The workflow judge runs here (it reads the trace and the workspace, never a
    reference, and an LLM judge needs the network); the task score -- the only step that
    reads the private references -- runs in the scoring container and reuses its verdicts."""
    files = RunFiles(run_dir)
    infra_end = meta.run.end_reason in INFRA_END_REASONS
    llm_answer_judge = None if infra_end else (answer_judge or meta.answer_judge)
    task = task or resolve_task(meta)
    judge_verdict(files, files, meta, task, judge, infra_end)   # written to judge.json: the container reuses it
    if llm_answer_judge:
        why = (f"the answer judge {llm_answer_judge!r} calls an LLM over the network, and the scoring "
               "container has none")
    elif container_scorer is None:
        why = "no scoring container was handed in (automedbench.api scores docker runs in one)"
    else:
        try:
            written, container = container_scorer(run_dir, sandbox=meta.run.sandbox,
                                                  dataset_root=Path(meta.dataset_root),
                                                  tasks_dirs=[Path(p) for p in meta.tasks_dirs])
            report = DetailReport.model_validate_json(written.pop(files.report.name))
            # the report must come from the container the harness started (docs/sandbox.md
            # "Scoring in a container of its own"): read here, the one parse of the report
            if report.versions.get("scoring_container") != container:
                raise ScoringContainerUnavailable(f"the report does not come from container {container}: "
                                                  f"{report.versions}")
        except ScoringContainerUnavailable as exc:
            why = one_line(exc)
        except ValueError as exc:   # the container wrote something that is not a report
            why = f"the scoring container wrote no valid report: {str(exc).splitlines()[0]}"
        else:
            for name, text in written.items():   # judge.json, when the container had to judge
                (files.dir / name).write_text(text)
            write_json_atomic(files.report, report)
            report._run_dir = run_dir
            return report
    log.warning("%s: the docker run is scored in the harness process, not in a scoring container: %s", run_dir, why)
    return _score_here(run_dir, meta, None, answer_judge=answer_judge, agent_configs=agent_configs, out=files,
                       outside_container=why, task=task)


def _flags(meta: RunMeta, judge_incomplete: bool, outside_container: str, reference_error: bool,
           task_changed: bool) -> list[str]:
    """The report's flags, in their fixed order."""
    named = [("interrupted", meta.run.end_reason in ("interrupted", None)),
             ("judge_incomplete", judge_incomplete),
             ("no_isolation", meta.run.sandbox.startswith("local")),
             ("scored_outside_container", bool(outside_container)),
             ("reference_error", reference_error),
             ("task_changed", task_changed),
             ("disqualified", meta.disqualified)]
    return [flag for flag, on in named if on]


def _score_here(run_dir: Path, meta: RunMeta, judge: Judge | None, *, answer_judge: str | None,
                agent_configs: list[Path] | None, out: RunFiles, outside_container: str = "",
                task: Task | None = None) -> DetailReport:
    files = RunFiles(run_dir)
    infra_end = meta.run.end_reason in INFRA_END_REASONS
    changed = ""
    if task is None:   # one handed in is the definition that ran; one resolved now may have changed since
        task = resolve_task(meta)
        changed = task_definition_changed(meta, task)
    if changed:
        log.warning("%s: %s", run_dir, changed)
    track = task.track_impl
    data = DatasetPaths(Path(meta.dataset_root))
    trace = RunRecord(files.dir).trace   # docs/run_record.md "Reading a run folder"

    expected = expected_cases(meta, data)
    task_result, outcomes = score_workspace(
        track, files.workspace, data.private, expected, task.options,
        # an infra-ended run is not scored: no paid answer-judge calls for it either
        scoring_context(out, None if infra_end else (answer_judge or meta.answer_judge), agent_configs),
        public=data.public)
    any_non_trivial = any(o.non_trivial for o in outcomes)
    if not infra_end:  # thumbnails for the run page, beside the report; the judge never reads them
        write_pictures(track, task_result.per_case, expected, files.workspace, data.public,
                       data.private, task.options, out.dir, components=task_result.components)
    stages: dict[str, StageResult | None] = {
        "s4": s4_inference(task_result),
        "s5": s5_submit(task_result, meta.run.submitted, any_non_trivial),
    }

    verdict, judge_info = judge_verdict(files, out, meta, task, judge, infra_end, trace)
    stages.update(verdict)

    rubric = load_rubric()
    agentic, active = agentic_score(stages, rubric)
    disqualified = meta.disqualified
    any_valid = any(c.valid for c in task_result.per_case)
    bands, shown = bands_above_chance(resolve_bands(task, data.root), task_result.aggregate_metrics)
    basis = task_result.component_notes.get(f"chance_level.{bands.metric}", "")
    task_result.medal_bands = {**bands.model_dump(), **shown, **({"chance_basis": basis} if shown else {})}
    medal, rating = medal_and_rating(bands, {"score": task_result.score, **task_result.aggregate_metrics},
                                     any_valid, disqualified)
    errors = detect_errors(trace, stages, task_result, submitted=meta.run.submitted,
                           end_reason=meta.run.end_reason, workspace=files.workspace,
                           all_trivial=any_valid and not any_non_trivial, end_detail=meta.run.end_detail,
                           logic_drop=track.logic_drop, logic_metric=track.logic_metric)
    flags = _flags(meta, judge_info.judge_incomplete and not infra_end, outside_container,
                   bool(task_result.excluded_cases), bool(changed))
    if disqualified:
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
        versions={**_versions(meta, rubric.version),
                  **({"scored_outside_container": outside_container[:300]} if outside_container else {})},
    )
    if infra_end:
        report = null_for_infrastructure(report)
    write_json_atomic(out.report, report)
    report._run_dir = run_dir
    return report


def judge_verdict(files: RunFiles, out: RunFiles, meta: RunMeta, task: Task, judge: Judge | None, infra_end: bool,
                  trace: list[TraceEvent] | None = None) -> tuple[dict[str, StageResult | None], JudgeInfo]:
    """S1..S3: the saved verdicts (judge.json of `files`) when `judge` is None and they
    exist, else `judge`'s (default: the offline heuristic), saved to `out`'s judge.json."""
    saved = _load_saved_verdict(files) if judge is None else None
    if infra_end:   # nothing of the agent's workflow to judge, and no paid judge call for it
        return ({s: None for s in load_rubric().judged},
                JudgeInfo(backend="none", version="-", error="not judged: the run ended on an infrastructure fault"))
    if saved is not None:
        return saved
    if judge is None:
        judge = HeuristicJudge()
    evidence = JudgeEvidence(task=task, tier=meta.run.tier, workspace=files.workspace,
                             trace=RunRecord(files.dir).trace if trace is None else trace,
                             conversation=_load_conversation(files), case_ids=list(meta.case_ids),
                             data_dir=DatasetPaths(Path(meta.dataset_root)).public if meta.dataset_root else None,
                             experiments=load_experiments(files.dir))
    verdict, judge_info = run_judge(judge, evidence)
    if judge_info.judge_incomplete and _load_saved_verdict(files) is not None:
        raise JudgeFailed(f"{files.dir}: judge {judge_info.backend}"
                          f"{' (' + str(judge_info.model) + ')' if judge_info.model else ''} could not judge "
                          f"every stage ({judge_info.error}); the saved verdicts were kept")
    write_json_atomic(out.judge, {"judge": judge_info.model_dump(),
                                  "stages": {k: (v.model_dump() if v else None) for k, v in verdict.items()}})
    return verdict, judge_info


def expected_cases(meta: RunMeta, data: DatasetPaths) -> list[dict]:
    """The manifest's entry for each expected case (metadata the track's aggregate needs), in
    the run's order; a case the manifest no longer lists keeps just its id."""
    try:
        by_id = {str(c["case_id"]): c for c in data.load_manifest().get("cases", [])}
    except Exception:  # an unreadable manifest: score with ids only (cases then lack metadata)
        by_id = {}
    return [{k: v for k, v in by_id.get(cid, {"case_id": cid}).items() if k != "files"} for cid in meta.case_ids]


def scoring_context(files: RunFiles, answer_judge: str | None = None,
                    agent_configs: list[Path] | None = None) -> ScoringContext:
    """Services a track's metric may use. The answer judge's verdicts are cached in the judge
    cache, so re-scoring never pays twice."""
    return ScoringContext(answer_judge=get_answer_judge(answer_judge, agent_configs),
                          cache_dir=files.dir / ".scoring_cache")


def resolve_task(meta: RunMeta) -> Task:
    """The task a saved run names, from the task folders it recorded."""
    return get_task(meta.run.task, extra=[Path(p) for p in meta.tasks_dirs])


def task_hash(snapshot: dict) -> str:
    return hashlib.sha256(json.dumps(snapshot, sort_keys=True, default=str).encode()).hexdigest()


def task_definition_changed(meta: RunMeta, task: Task) -> str:
    """'' when the task is as it was at run time; else a one-line note (recorded as a flag)."""
    if not meta.task_hash:
        return ""
    now = task_hash(task.hashed_snapshot())
    if now != meta.task_hash:
        return (f"the definition of task {task.id!r} changed since this run (hash {meta.task_hash[:12]} → "
                f"{now[:12]}); scored with the current definition")
    return ""


def _versions(meta: RunMeta, rubric_version: int) -> dict[str, str]:
    out = {"harness_scored": __version__, "rubric": str(rubric_version)}
    if meta.harness_version:
        out["harness_run"] = meta.harness_version
    if meta.task_hash:
        out["task_hash"] = meta.task_hash[:16]
    # per-field digests, so a board that splits rows can name the fields that differ
    # (docs/leaderboard.md "Rows that are never mixed")
    if meta.task_snapshot:
        out["task_fields"] = field_digests(meta.task_snapshot)
    if meta.agent_config:
        out["config_fields"] = field_digests(meta.agent_config)
    return out


def field_digests(data: dict[str, Any], prefix: str = "") -> str:
    """'field:sha8;nested.field:sha8;...' of a mapping, nested mappings flattened with dots."""
    parts = []
    for key in sorted(data):
        value = data[key]
        if isinstance(value, dict) and value:
            parts.append(field_digests(value, f"{prefix}{key}."))
        else:
            digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:8]
            parts.append(f"{prefix}{key}:{digest}")
    return ";".join(p for p in parts if p)


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
    """docs/faults.md: a run the sandbox or the provider ended is nobody's score. S1..S5, agentic,
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


def _load_saved_verdict(files: RunFiles) -> tuple[dict[str, StageResult | None], JudgeInfo] | None:
    try:
        saved = RunRecord(files.dir).judge   # docs/run_record.md "Reading a run folder"
    except RunFileError:
        return None    # a judge.json that does not read is judged again
    if saved is None:
        return None
    return {k: v for k, v in saved.stages.items()}, saved.judge
