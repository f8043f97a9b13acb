"""Score a workspace with a track's own functions, as the core does (load reference, check,
score, aggregate over every expected case). Used by the track tests before/besides the core's
end-to-end path; it calls only the public Track protocol."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from automedbench.tracks.base import CaseRecord, CaseStatus, ScoringContext, SubmittedCase
from automedbench.tracks.cohort import read_cohort


def score_outputs(track, dataset_root: Path, outputs: Path, options):
    import json
    manifest = json.loads((dataset_root / "manifest.json").read_text())
    layout = track.submission(options)
    ids = [c["case_id"] for c in manifest["cases"]]
    cohort = read_cohort(outputs, layout, ids) if layout.kind == "cohort" else None
    records = []
    ctx = ScoringContext()
    for case in manifest["cases"]:
        cid = case["case_id"]
        try:
            ref, ref_meta = track.load_reference(dataset_root / "private" / cid, case, options)
        except Exception as exc:  # noqa: BLE001 - a harness fault, recorded
            records.append(CaseRecord(cid, case, CaseStatus.REFERENCE_ERROR, reason=str(exc)))
            continue
        if cohort is not None:
            if cid in cohort.case_errors or cohort.file_error:
                why = cohort.case_errors.get(cid, cohort.file_error)
                records.append(CaseRecord(cid, case, CaseStatus.INVALID, reason=why, reference=ref))
                continue
            if cid not in cohort.rows:
                records.append(CaseRecord(cid, case, CaseStatus.MISSING, reference=ref))
                continue
            sub = SubmittedCase(cid, row=cohort.rows[cid])
        else:
            case_dir = outputs / cid
            if not case_dir.exists():
                records.append(CaseRecord(cid, case, CaseStatus.MISSING, reference=ref))
                continue
            sub = SubmittedCase(cid, dir=case_dir)
        check = track.check_case(sub, ref_meta, options)
        if not check.valid:
            records.append(CaseRecord(cid, case, CaseStatus.INVALID, reason=check.reason, reference=ref))
            continue
        score = track.score_case(check.prediction, ref, options, ctx)
        records.append(CaseRecord(cid, case, CaseStatus.OK, score=score, prediction=check.prediction, reference=ref))
    return track.aggregate(records, options, ctx), records


def run_scripted(code: str, workspace: Path) -> str:
    """Run one piece of scripted-agent code in the workspace, like execute_code does."""
    workspace.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-c", code], cwd=workspace, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout
