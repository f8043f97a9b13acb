"""What the VQA tests share: a scorer that walks the expected cases the way the core does
(load reference -> check -> score -> aggregate), and a writer of one answer.json."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from automedbench.data import DatasetPaths
from automedbench.scoring.task_score import aggregate_cases
from automedbench.tracks.base import (
    CaseRecord,
    CaseStatus,
    ScoringContext,
    SubmittedCase,
)
from automedbench.tracks.vqa import TRACK


def score_outputs(paths: DatasetPaths, outputs: Path, options: dict[str, Any] | None = None,
                  context: ScoringContext | None = None):
    """(AggregateResult, {case_id: CaseRecord}) for `outputs/` against the dataset."""
    options = TRACK.parse_options(options)
    context = context or ScoringContext()
    records = {}
    for case in json.loads(paths.manifest.read_text())["cases"]:
        cid = case["case_id"]
        try:
            ref, ref_meta = TRACK.load_reference(paths.private / cid, case, options)
        except Exception as exc:  # noqa: BLE001 — as the core: any failure = reference_error
            records[cid] = CaseRecord(cid, case, CaseStatus.REFERENCE_ERROR, reason=str(exc))
            continue
        case_dir = outputs / cid
        if not case_dir.exists() and not case_dir.is_symlink():
            records[cid] = CaseRecord(cid, case, CaseStatus.MISSING, reason="missing", reference=ref)
            continue
        check = TRACK.check_case(SubmittedCase(cid, dir=case_dir), ref_meta, options)
        if not check.valid:
            records[cid] = CaseRecord(cid, case, CaseStatus.INVALID, reason=check.reason, reference=ref)
            continue
        score = TRACK.score_case(check.prediction, ref, options, context)
        records[cid] = CaseRecord(cid, case, CaseStatus.OK, score=score, prediction=check.prediction,
                                  reference=ref)
    return aggregate_cases(TRACK, list(records.values()), options, context), records


def write_answer(outputs: Path, qid: str, **fields: Any) -> Path:
    d = outputs / qid
    d.mkdir(parents=True, exist_ok=True)
    body = {"question_id": qid, "predicted_label": None, "predicted_answer": "",
            "raw_model_output": "model said so", "model_name": "test-model", **fields}
    (d / "answer.json").write_text(json.dumps(body))
    return d / "answer.json"
