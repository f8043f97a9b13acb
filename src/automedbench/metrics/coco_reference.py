"""mAP@IoU by pycocotools itself, on the same array inputs as metrics.detection_map.

Used only to cross-check our pure function (tests, bench/score_detection.py); pycocotools is
a test/bench dependency, never needed to score a run. Images get ids 1..N in input order and
classes ids 1..K (pycocotools treats id 0 as "unmatched"), so both sides rank ties alike.
"""
from __future__ import annotations

import contextlib
import io
from typing import Any, Sequence

import numpy as np


def _xywh(x1: float, y1: float, x2: float, y2: float) -> list[float]:
    return [float(x1), float(y1), float(x2) - float(x1), float(y2) - float(y1)]


def coco_map(gt_per_image: Sequence, dt_per_image: Sequence, n_classes: int,
             iou_threshold: float = 0.5, max_dets: int = 100) -> float | None:
    """pycocotools' AP at `iou_threshold` (area all, `max_dets`); None where it reports -1.
    With no detection at all pycocotools cannot run (loadRes([]) fails): AP is 0 then if
    any ground truth exists (every ground-truth box is missed), else None."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for i, (gts, dts) in enumerate(zip(gt_per_image, dt_per_image), start=1):
        images.append({"id": i, "width": 100000, "height": 100000})
        for c, x1, y1, x2, y2 in np.asarray(gts, dtype=float).reshape(-1, 5):
            box = _xywh(x1, y1, x2, y2)
            annotations.append({"id": len(annotations) + 1, "image_id": i, "category_id": int(c) + 1,
                                "bbox": box, "area": box[2] * box[3], "iscrowd": 0})
        for c, score, x1, y1, x2, y2 in np.asarray(dts, dtype=float).reshape(-1, 6):
            results.append({"image_id": i, "category_id": int(c) + 1, "score": float(score),
                            "bbox": _xywh(x1, y1, x2, y2)})
    if not results:
        return 0.0 if annotations else None
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        gt = COCO()
        gt.dataset = {"images": images, "annotations": annotations,
                      "categories": [{"id": k + 1, "name": str(k)} for k in range(n_classes)]}
        gt.createIndex()
        dt = gt.loadRes(results)
        ev = COCOeval(gt, dt, "bbox")
        ev.params.iouThrs = np.array([iou_threshold])
        ev.params.maxDets = [max_dets]
        ev.params.areaRng = [[0 ** 2, 1e5 ** 2]]
        ev.params.areaRngLbl = ["all"]
        ev.evaluate()
        ev.accumulate()
    s = ev.eval["precision"][0, :, :, 0, 0]
    valid = s[s > -1]
    return float(np.mean(valid)) if valid.size else None
