"""Place the tracks' per-case pictures beside a run's report (docs/site.md "Pictures of outputs").

After scoring, the core picks at most MAX_CASES valid cases of a run — half the worst, half the
best: by what each costs the task score where its components are per-case metrics, else by
the track's headline per-case metric (case_cost.py) — and at most MAX_INVALID cases whose output failed
its check (one per distinct reason first), reads each one's prediction and reference again
(image tracks free them once scored, so memory stays at one case), asks the track for its
pictures (tracks/pictures.py, optional) and writes

    <report dir>/pictures/<case_id>/<name>       the files, as the track drew them
    <report dir>/pictures/index.json             [{case_id, value, valid, files: [{name, caption, media_type}]}]

An invalid case is handed to the track with `prediction=None`, its `reason` and its output
folder as written, so the track can draw what it can read of it (tracks/pictures.py).

The judge never reads this folder (it sits outside the workspace). A picture that fails is
logged and left out: a drawing bug never fails a run's scoring.
"""
from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..run_files import RunFiles, WorkspaceNames
from ..runs.models import CaseResult
from ..tracks.base import SubmittedCase, Track, draws_pictures, pictures_of
from ..tracks.cohort import read_cohort
from ..tracks.pictures import PictureCase
from .case_cost import valid_by_cost

log = logging.getLogger(__name__)

MAX_CASES = 12
MAX_INVALID = 24         # cases whose output failed its check: drawn with their reason
MAX_BYTES = 400_000          # one picture; a larger one is left out (the index stays small)
PICTURES_DIR = RunFiles.PICTURES
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def pick_cases(per_case: list[CaseResult], metric: str, limit: int = MAX_CASES,
               components: Sequence[str] = ()) -> list[tuple[str, float | None]]:
    """At most `limit` valid cases: the worst half and the best half (ties by case order),
    ranked by what each costs the task score when its components are per-case metrics, else
    by the headline metric `metric` (case_cost.py; docs/site.md "Worst cases by cost")."""
    ranked = [(c.case_id, c.value) for c in valid_by_cost(per_case, components, metric).cases]
    if len(ranked) <= limit:
        return ranked
    return ranked[: limit - limit // 2] + ranked[len(ranked) - limit // 2:]


def pick_invalid(per_case: list[CaseResult], limit: int = MAX_INVALID) -> list[str]:
    """At most `limit` cases whose output is there but failed its check (status "invalid"; a
    missing output has nothing to draw): one per distinct reason first, digits aside, so each
    kind of failure is seen, then the others in case order."""
    invalid = [c for c in per_case if c.status == "invalid"]
    seen: set[str] = set()
    first: list[str] = []
    rest: list[str] = []
    for c in invalid:
        key = re.sub(r"-?\d+(\.\d+)?", "#", c.reason)
        (rest if key in seen else first).append(c.case_id)
        seen.add(key)
    return (first + rest)[:limit]


def safe_name(name: str) -> str:
    return _SAFE.sub("-", name).strip("-.")[:80] or "x"


def write_pictures(track: Track, per_case: list[CaseResult], cases: list[dict[str, Any]], workspace: Path,
                   public: Path, private: Path, options: Any, out_dir: Path,
                   components: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Draw and place the pictures; returns the index written to pictures/index.json.
    `components`: the task score's (TaskResult.components), to pick the costliest cases."""
    root = Path(out_dir) / PICTURES_DIR
    if root.exists():
        shutil.rmtree(root)  # a re-score replaces the old pictures
    if not draws_pictures(track):
        return []
    metric = track.logic_metric or ""
    by_id = {c.case_id: c for c in per_case}
    chosen: list[tuple[str, float | None, bool]] = [(cid, v, True) for cid, v in pick_cases(per_case, metric, components=components)]
    chosen += [(cid, None, False) for cid in pick_invalid(per_case)]
    metas = {str(c["case_id"]): c for c in cases}
    layout = track.submission(options)
    rows = read_cohort(workspace / WorkspaceNames.OUTPUTS, layout, list(metas)).rows if layout.kind == "cohort" and chosen else {}
    index: list[dict[str, Any]] = []
    for cid, value, valid in chosen:
        pics = _draw(track, cid, valid, by_id[cid], metas[cid], rows, layout.kind, workspace, public, private,
                     options)
        files = []
        for p in pics:
            if len(p.data) > MAX_BYTES:
                log.warning("picture %s of case %s left out: %d bytes > %d", p.name, cid, len(p.data), MAX_BYTES)
                continue
            name = safe_name(p.name)
            (root / safe_name(cid)).mkdir(parents=True, exist_ok=True)
            (root / safe_name(cid) / name).write_bytes(p.data)
            files.append({"name": name, "caption": p.caption, "media_type": p.media_type})
        if files:
            index.append({"case_id": cid, "dir": safe_name(cid), "value": value, "valid": valid, "files": files})
    if index:
        (root / "index.json").write_text(json.dumps(index, indent=1), encoding="utf-8")
    return index


def _draw(track: Track, cid: str, valid: bool, result: CaseResult, meta: dict[str, Any], rows: dict[str, Any],
          kind: str, workspace: Path, public: Path, private: Path, options: Any) -> list[Any]:
    """The track's pictures of one case, or [] when reading or drawing it fails (logged)."""
    try:
        reference, ref_meta = track.load_reference(private / cid, meta, options)
        out_dir = workspace / WorkspaceNames.OUTPUTS / cid
        sub = SubmittedCase(cid, row=rows.get(cid)) if kind == "cohort" else SubmittedCase(cid, dir=out_dir)
        check = track.check_case(sub, ref_meta, options)
        if check.valid != valid:
            return []           # the output changed since it was scored: draw nothing stale
        return pictures_of(track, PictureCase(
            cid, public / cid, meta, check.prediction if valid else None, reference, dict(result.metrics),
            reason="" if valid else (result.reason or check.reason),
            output_dir=out_dir if kind != "cohort" and out_dir.is_dir() else None), options)
    except Exception as exc:  # noqa: BLE001 - a drawing bug never fails scoring
        log.warning("pictures of case %s left out: %s: %s", cid, type(exc).__name__, exc)
        return []
