"""Task score of a workspace against the private references (docs/scoring.md#task-score), for ANY track.

For every expected case the core decides a status — missing / invalid / reference_error / ok —
from the track's SubmissionLayout and its check_case, never from the text of a reason. The
rules that make a task score comparable are applied here, once, around the track's
`aggregate` (docs/tracks.md, "What the core owns"):
  before: reference-error cases are left out (a harness fault, never the agent's); the track
          gets the rest as ScoredCases (valid ones, and the missing/invalid ones without a
          prediction or score);
  after:  task score = the track's score over the valid cases × completion (valid / expected),
          so a missing or invalid case counts 0 whatever the track does; no scorable case → 0.

Cases are checked and scored in a small thread pool: decompression and numpy release the GIL,
so two cores work on two cases at once while memory stays at a few cases.
"""
from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..runs.models import CaseResult, TaskResult
from ..run_files import WorkspaceNames
from ..tracks.base import (AggregateResult, CaseRecord, CaseStatus, ProfileScore, ScoredCases, ScoringContext,
                           SubmittedCase, Track)
from ..tracks.cohort import read_cohort
from ..tracks.profile import reference_profile

MAX_WORKERS = max(1, min(4, os.cpu_count() or 1))


@dataclass
class CaseOutcome:
    record: CaseRecord
    result: CaseResult
    non_trivial: bool     # valid and not a trivial (all-zero / empty) prediction


def _outcome(record: CaseRecord, non_trivial: bool = False, finding: str = "") -> CaseOutcome:
    metrics = dict(record.score.metrics) if record.score is not None else {}
    flags = [str(f) for f in record.score.extra.get("flags", [])] if record.score is not None else []
    # a scored case's reason is what the track's plausibility check found in the output (the
    # words the per-call check printed), else its `extra["why"]`: why a clear failure failed
    # (docs/site.md "One source for every statement", docs/tracks.md)
    why = str(record.score.extra.get("why") or "") if record.score is not None else ""
    result = CaseResult(case_id=record.case_id, status=record.status.value, flags=flags,
                        valid=record.status is CaseStatus.OK, reason=record.reason or finding or why,
                        metrics=metrics)
    return CaseOutcome(record, result, non_trivial)


def _score_one(track: Track[Any], submitted: SubmittedCase | None, missing_reason: str, meta: dict[str, Any],
               private: Path, options: Any, context: ScoringContext, public: Path | None = None) -> CaseOutcome:
    outcome = _check_and_score(track, submitted, missing_reason, meta, private, options, context, public)
    if not track.aggregate_uses_case_data:
        # volumes are large: keep a case's arrays only while it is scored, not for the whole
        # dataset (memory stays at a few cases). Tracks whose aggregate reads them keep them.
        outcome.record.prediction = outcome.record.reference = None
    return outcome


def _plausibility(track: Track[Any], prediction: Any, public: Path | None, case_id: str, options: Any) -> str:
    """What the track's plausibility check finds in a valid output, seen without the reference:
    the same check, and so the same words, as the per-call check of the output (scoring/
    output_checks.py). "" without the public inputs, or when the check itself fails."""
    if public is None:
        return ""
    try:
        return str(track.plausibility(prediction, public / case_id, options) or "")
    except Exception:   # noqa: BLE001 - a checker must not raise; the case keeps the track's own reason
        return ""


def _check_and_score(track: Track[Any], submitted: SubmittedCase | None, missing_reason: str, meta: dict[str, Any],
                     private: Path, options: Any, context: ScoringContext, public: Path | None = None) -> CaseOutcome:
    cid = str(meta["case_id"])
    try:
        reference, ref_meta = track.load_reference(private / cid, meta, options)
    except Exception as exc:  # our reference is broken: a harness fault, never the agent's
        return _outcome(CaseRecord(cid, meta, CaseStatus.REFERENCE_ERROR,
                                   reason=f"reference unreadable (benchmark data fault, excluded): {exc}"))
    if submitted is None:
        return _outcome(CaseRecord(cid, meta, CaseStatus.MISSING, reason=missing_reason, reference=reference))
    try:
        check = track.check_case(submitted, ref_meta, options)
    except Exception as exc:  # a checker must not raise; if one does, the case is invalid, not a crash
        return _outcome(CaseRecord(cid, meta, CaseStatus.INVALID, reference=reference,
                                   reason=f"format check failed unexpectedly: {type(exc).__name__}: {exc}"))
    if not check.valid:
        return _outcome(CaseRecord(cid, meta, CaseStatus.INVALID, reason=check.reason, reference=reference))
    try:
        score = track.score_case(check.prediction, reference, options, context)
    except Exception as exc:
        return _outcome(CaseRecord(cid, meta, CaseStatus.INVALID, reference=reference,
                                   reason=f"could not be scored: {type(exc).__name__}: {exc}"))
    record = CaseRecord(cid, meta, CaseStatus.OK, score=score, prediction=check.prediction, reference=reference)
    return _outcome(record, check.non_trivial, _plausibility(track, check.prediction, public, cid, options))


def scored_cases(records: list[CaseRecord]) -> ScoredCases:
    """The cases a task is scored on: every expected case but those whose reference cannot be
    read. Its `completion` (valid / these) is the one completion: the factor of the task score
    and the task's `completion_rate` (docs/scoring.md)."""
    return ScoredCases([r for r in records if r.status is not CaseStatus.REFERENCE_ERROR])


def aggregate_cases(track: Track[Any], records: list[CaseRecord], options: Any,
                    context: ScoringContext | None = None) -> AggregateResult:
    """The core's rules around `track.aggregate`, applied once for every track: reference
    errors left out before, score × completion after (docs/tracks.md). `records`: one per
    expected case, any status."""
    cases = scored_cases(records)
    if not cases.expected:
        return AggregateResult(score=0.0, notes={"score": "no scorable case: every reference is unreadable"})
    result = track.aggregate(cases, options, context or ScoringContext())
    over_valid = float(result.score)
    if not math.isfinite(over_valid):
        raise ValueError(f"track {track.name!r}: aggregate returned a non-finite score ({over_valid})")
    # missing and invalid cases count 0: the score over the valid cases × completion
    return replace(result, score=over_valid * cases.completion if cases.valid else 0.0)


def score_workspace(track: Track[Any], workspace: Path, private: Path, cases: list[dict[str, Any]],
                    options: Any, context: ScoringContext | None = None,
                    workers: int = MAX_WORKERS, public: Path | None = None) -> tuple[TaskResult, list[CaseOutcome]]:
    """Score every expected case (`cases` = the manifest's case entries, in order). With the
    dataset's `public` folder, a valid output's reason is first what the track's plausibility
    check finds in it (the per-call check's words)."""
    context = context or ScoringContext()
    outputs = workspace / WorkspaceNames.OUTPUTS
    layout = track.submission(options)
    expected = [str(c["case_id"]) for c in cases]
    submitted: dict[str, SubmittedCase] = {}
    missing_reason: dict[str, str] = {}
    unexpected: list[str] = []
    file_level_error = ""
    if layout.kind == "per_case":
        for cid in expected:
            d = outputs / cid
            if d.exists() or d.is_symlink():
                submitted[cid] = SubmittedCase(cid, dir=d)
            else:
                missing_reason[cid] = "no output folder"
        if outputs.is_dir():
            unexpected = sorted(p.name for p in outputs.iterdir() if p.name not in set(expected))
    else:
        parsed = read_cohort(outputs, layout, expected)
        unexpected = parsed.unknown
        file_level_error = parsed.file_error if parsed.present else ""
        for cid in expected:
            if cid in parsed.rows:
                submitted[cid] = SubmittedCase(cid, row=parsed.rows[cid])
            elif cid in parsed.case_errors:
                # present but refused (e.g. duplicate rows): a row that fails any check
                submitted[cid] = SubmittedCase(cid, row=None)
                missing_reason[cid] = parsed.case_errors[cid]
            else:
                missing_reason[cid] = parsed.file_error or f"no row for this case in {layout.files[0].name}"

    def one(meta: dict[str, Any]) -> CaseOutcome:
        cid = str(meta["case_id"])
        sub = submitted.get(cid)
        if layout.kind == "cohort" and (file_level_error or (sub is not None and sub.row is None)):
            # the file exists but is unusable, or this case's row was refused: invalid, not missing
            reason = file_level_error or missing_reason[cid]
            outcome = _score_one(track, None, reason, meta, private, options, context, public)
            if outcome.record.status is CaseStatus.MISSING:
                outcome.record.status = CaseStatus.INVALID
                outcome.result.status = CaseStatus.INVALID.value
            return outcome
        return _score_one(track, sub, missing_reason.get(cid, "no output"), meta, private, options, context, public)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        outcomes = list(pool.map(one, cases))
    records = [o.record for o in outcomes]
    agg = aggregate_cases(track, records, options, context)
    by_id = {o.result.case_id: o.result for o in outcomes}
    for flag, case_ids in (agg.flags or {}).items():
        for cid in case_ids:
            if cid in by_id and flag not in by_id[cid].flags:
                by_id[cid].flags.append(flag)
    scored = scored_cases(records)
    tried = [r for r in scored.expected if r.status in (CaseStatus.OK, CaseStatus.INVALID)]
    result = TaskResult(
        score=float(agg.score),
        metric_name=track.metric_name(options),
        completion_rate=scored.completion,
        format_valid=bool(tried) and all(r.status is CaseStatus.OK for r in tried),
        per_case=[o.result for o in outcomes],
        unexpected_cases=unexpected,
        aggregate_metrics=dict(agg.metrics),
        components=list(agg.components),
        component_notes=dict(agg.notes),
        excluded_cases=[o.record.case_id for o in outcomes if o.record.status is CaseStatus.REFERENCE_ERROR],
        profile_scores=_profiles(track, records, options, context, agg.score, track.metric_name(options)),
    )
    return result, outcomes


def _profiles(track: Any, records: list[CaseRecord], options: Any, context: ScoringContext,
              ours: float, metric: str) -> dict[str, ProfileScore]:
    """Both scoring profiles' task scores (docs/scoring-profiles.md)."""
    ref = reference_profile(track, records, options, context)
    return {"ours": ProfileScore(score=float(ours), definition=metric),
            "reference": ref}
