"""The published reference's detection task score (docs/scoring-profiles.md), reproduced.

Reference: AutoMedBench/AutoMedBench, branch eval_det2d, eval_det2d/det2d_scorer.py
(`compute_map`, `_compute_ap_101`) and eval_det2d/aggregate.py (`build_report`,
`compute_task_score`):
  - classes: every class named by a reference OR a predicted box; a class with no reference box
    has AP 0 and still enters the mean (ours, like COCO, leaves it out);
  - per class and image, predictions by descending score each take the unused reference box
    with the highest IoU >= the threshold (no max_dets cap); all detections of the class are then
    ranked by score; AP = mean over recall 0, 0.01, ..., 1 of the best precision at recall >= r;
  - task score = round(mAP, 4), NOT multiplied by completion, but 0 unless every image has a
    prediction file (its completeness gate).
Boxes come from our checked predictions (ok cases). An image our checks refuse (an unlisted
class, a box outside the image) trips the gate here; the reference would read such a file: the
one known difference, stated in docs/scoring-profiles.md.
"""
from __future__ import annotations

import numpy as np

from ..base import CaseRecord, CaseStatus
from ..profile import ProfileScore

DEFINITION = ("reference detection: round(mAP@IoU, 4) with 101-point AP over every class named by a "
              "reference or predicted box (no reference box: AP 0); 0 unless every image has a prediction")


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    if inter <= 0:
        return 0.0
    union = max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1]) + max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def ap_101(tp: list[int], fp: list[int], total_gt: int) -> float:
    if total_gt == 0:
        return 0.0
    precisions, recalls = [], []
    t = f = 0
    for a, b in zip(tp, fp):
        t += a
        f += b
        precisions.append(t / (t + f) if t + f else 0.0)
        recalls.append(t / total_gt)
    total = 0.0
    for step in range(101):
        r = step / 100.0
        total += max((p for p, rc in zip(precisions, recalls) if rc >= r), default=0.0)
    return total / 101.0


def mean_ap(gts: list[np.ndarray], dts: list[np.ndarray], iou_threshold: float) -> float:
    """gts: per image rows (class, x1, y1, x2, y2); dts: rows (class, score, x1, y1, x2, y2)."""
    classes = sorted({int(c) for g in gts for c in g[:, 0]} | {int(c) for d in dts for c in d[:, 0]})
    if not classes:
        return 0.0      # the reference's class list is then {"abnormality"} with no box: AP 0
    aps = []
    for c in classes:
        detections: list[tuple[float, int]] = []
        total_gt = 0
        for g_all, d_all in zip(gts, dts):
            g = g_all[g_all[:, 0] == c, 1:]
            d = d_all[d_all[:, 0] == c]
            total_gt += len(g)
            used: set[int] = set()
            for row in d[np.argsort(-d[:, 1], kind="stable")]:
                best, best_iou = None, 0.0
                for j in range(len(g)):
                    if j in used:
                        continue
                    iou = _iou(row[2:], g[j])
                    if iou >= iou_threshold and iou > best_iou:
                        best, best_iou = j, iou
                if best is not None:
                    used.add(best)
                detections.append((float(row[1]), int(best is not None)))
        detections.sort(key=lambda x: x[0], reverse=True)
        aps.append(ap_101([t for _, t in detections], [1 - t for _, t in detections], total_gt))
    return sum(aps) / len(aps)


def reference_score(records: list[CaseRecord], iou_threshold: float) -> ProfileScore:
    scored = [r for r in records if r.status != CaseStatus.REFERENCE_ERROR]
    if not scored:
        return ProfileScore(None, DEFINITION, "no scorable image")
    if any(r.status != CaseStatus.OK or r.prediction is None for r in scored):
        return ProfileScore(0.0, DEFINITION, "completeness gate: not every image has a valid prediction")
    gts = [np.asarray(r.reference["boxes"], dtype=float).reshape(-1, 5) for r in scored]
    dts = [np.asarray(r.prediction, dtype=float).reshape(-1, 6) for r in scored]
    return ProfileScore(round(mean_ap(gts, dts, iou_threshold), 4), DEFINITION)
