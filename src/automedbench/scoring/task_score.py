"""Task score of a workspace against the private references (SPEC §4).

Reads `workspace/outputs/<case_id>/<files>` for every expected case, checks and scores
each with the track, and aggregates over ALL expected cases (missing/invalid = 0).
Cases are scored in a small thread pool: decompression (zlib) releases the GIL, so two
cores decompress two cases at once while memory stays at a few cases.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..runs.models import CaseResult, TaskResult
from ..tracks.base import CaseScore

MAX_WORKERS = max(1, min(4, os.cpu_count() or 1))


@dataclass
class CaseOutcome:
    result: CaseResult
    score: CaseScore | None
    submitted: bool       # the case folder existed in outputs/
    non_trivial: bool     # valid and not an all-zero prediction


def _score_one(track, cid: str, outputs: Path, private: Path, options: dict[str, Any]) -> CaseOutcome:
    case_dir = outputs / cid
    submitted = case_dir.exists() or case_dir.is_symlink()
    if not submitted:
        return CaseOutcome(CaseResult(case_id=cid, valid=False, reason="missing: no output folder"), None, False, False)
    try:
        reference, meta = track.load_reference(private / cid, options)
    except Exception as exc:  # a broken reference is the benchmark's fault: say so
        return CaseOutcome(CaseResult(case_id=cid, valid=False,
                                      reason=f"reference unreadable (benchmark data fault): {exc}"), None, True, False)
    check = track.check_case(case_dir, meta, options)
    if not check.valid:
        return CaseOutcome(CaseResult(case_id=cid, valid=False, reason=check.reason), None, True, False)
    score = track.score_case(check.prediction, reference, options)
    non_trivial = any(np.count_nonzero(a) for a in check.prediction.values()) \
        if isinstance(check.prediction, dict) else True
    return CaseOutcome(CaseResult(case_id=cid, valid=True, metrics=score.metrics), score, True, non_trivial)


def score_workspace(track, workspace: Path, private: Path, expected: list[str],
                    options: dict[str, Any], lesion_positive: list[bool] | None = None,
                    workers: int = MAX_WORKERS) -> tuple[TaskResult, list[CaseOutcome], dict[str, float]]:
    outputs = workspace / "outputs"
    with ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(lambda cid: _score_one(track, cid, outputs, private, options), expected))
    unexpected = sorted(p.name for p in outputs.iterdir() if p.name not in set(expected)) if outputs.is_dir() else []
    agg = track.aggregate([o.score for o in outcomes], options, lesion_positive)
    n = len(expected)
    valid = sum(o.result.valid for o in outcomes)
    submitted = [o for o in outcomes if o.submitted]
    result = TaskResult(
        score=float(agg["score"]),
        metric_name=track.metric_name(options),
        completion_rate=valid / n if n else 0.0,
        format_valid=bool(submitted) and all(o.result.valid for o in submitted),
        per_case=[o.result for o in outcomes],
        unexpected_cases=unexpected,
    )
    return result, outcomes, agg
