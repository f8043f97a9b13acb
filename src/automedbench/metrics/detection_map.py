"""Mean average precision for box detection at one IoU threshold (COCO-style, 101 points).

A pure re-implementation of the bbox path of pycocotools' COCOeval (Lin et al., "Microsoft
COCO: Common Objects in Context", ECCV 2014; cocoapi PythonAPI/pycocotools/cocoeval.py,
maskApi.c bbIou) restricted to what the detection track needs: one IoU threshold (0.5),
area range "all", `max_dets` detections per image and class (COCO: 100), no crowd boxes.
It reproduces pycocotools' value bit for bit (tests/tracks/detection/test_detection_map.py checks it
on randomised cases with ties, empty predictions and negative images), including its
conventions:

- IoU is computed on (x, y, w, h) boxes exactly as maskApi.c does it (same arithmetic order).
- Within an image and class, detections are ranked by score with a stable sort (input order
  breaks ties) and cut to `max_dets`; each takes the still unmatched ground-truth box of
  highest IoU >= threshold (on equal IoU the later box wins, as in cocoeval's loop).
- Across images, detections are ranked by score with a stable sort, images in input order.
- Precision is made monotone, then read at the 101 recall points 0, 0.01, ..., 1 (the first
  point of the PR curve whose recall reaches it; 0 beyond the highest recall reached).
- A class without any ground-truth box is left out of the mean (its false positives cost
  nothing — cocoeval's -1); a class with ground truth but no detection has AP 0.
- mAP = mean over the 101 × K precision table of the classes that have ground truth (the
  same flattened mean cocoeval's summarize() takes). None when no class has ground truth.

Why our own: pycocotools needs COCO-format JSON dictionaries and crashes on an empty result
list; the harness needs a pure function over arrays that handles every submission.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

RECALL_POINTS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)


@dataclass
class MapResult:
    map: float | None                          # None when no class has a ground-truth box
    ap: list[float | None]                     # per class; None = no ground truth for it
    recall: list[float | None]                 # highest recall reached per class
    n_gt: list[int] = field(default_factory=list)
    n_det: list[int] = field(default_factory=list)


def _as_array(rows: Sequence[Sequence[float]] | np.ndarray, width: int) -> np.ndarray:
    arr = np.asarray(rows, dtype=np.float64)
    if arr.size == 0:
        return np.zeros((0, width), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"expected rows of {width} numbers, got shape {arr.shape}")
    return arr


def box_iou(dt: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """IoU matrix (len(dt), len(gt)) of corner boxes (x1, y1, x2, y2), computed exactly like
    pycocotools' bbIou on (x, y, w, h) boxes (0 where the boxes do not overlap)."""
    dx, dy = dt[:, 0:1], dt[:, 1:2]
    dw, dh = dt[:, 2:3] - dx, dt[:, 3:4] - dy
    gx, gy = gt[:, 0], gt[:, 1]
    gw, gh = gt[:, 2] - gx, gt[:, 3] - gy
    w = np.minimum(dw + dx, gw + gx) - np.maximum(dx, gx)
    h = np.minimum(dh + dy, gh + gy) - np.maximum(dy, gy)
    inter = w * h
    union = (dw * dh + gw * gh) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / union
    return np.where((w > 0) & (h > 0), iou, 0.0)


def match_detections(dt_boxes: np.ndarray, gt_boxes: np.ndarray, threshold: float) -> np.ndarray:
    """Greedy matching of score-ranked detections: True where a detection is a true positive.

    Plain Python floats on purpose: an image holds a handful of boxes per class, where a
    numpy call per pair costs more than the arithmetic. The arithmetic is maskApi.c's bbIou,
    in the same order on IEEE doubles, so the IoUs are the very same numbers."""
    matched = np.zeros(len(dt_boxes), dtype=bool)
    if len(dt_boxes) == 0 or len(gt_boxes) == 0:
        return matched
    gts = [(x1, y1, x2 - x1, y2 - y1) for x1, y1, x2, y2 in gt_boxes.tolist()]
    g_area = [w * h for _, _, w, h in gts]
    free = [True] * len(gts)
    for d, (dx, dy, x2, y2) in enumerate(dt_boxes.tolist()):
        dw, dh = x2 - dx, y2 - dy
        d_area = dw * dh
        best, m = threshold, -1
        for g, (gx, gy, gw, gh) in enumerate(gts):
            if not free[g]:
                continue
            w = min(dw + dx, gw + gx) - max(dx, gx)
            if w <= 0:
                continue
            h = min(dh + dy, gh + gy) - max(dy, gy)
            if h <= 0:
                continue
            inter = w * h
            iou = inter / (d_area + g_area[g] - inter)
            if iou < best:                 # >= : on equal IoU the later box wins, as in cocoeval
                continue
            best, m = iou, g
        if m >= 0:
            matched[d] = True
            free[m] = False
    return matched


def mean_average_precision(gt_per_image: Sequence, dt_per_image: Sequence, n_classes: int,
                           iou_threshold: float = 0.5, max_dets: int = 100) -> MapResult:
    """COCO-style mAP@`iou_threshold` with 101-point interpolation.

    gt_per_image[i]: rows (class_index, x1, y1, x2, y2) of image i's ground-truth boxes.
    dt_per_image[i]: rows (class_index, score, x1, y1, x2, y2) of image i's detections.
    Images without detections (unanswered, invalid, negative) are empty lists: their
    ground truth counts as missed. Class indices are 0..n_classes-1."""
    if len(gt_per_image) != len(dt_per_image):
        raise ValueError("gt_per_image and dt_per_image must list the same images")
    threshold = min(iou_threshold, 1 - 1e-10)
    gts = [_as_array(g, 5) for g in gt_per_image]
    dts = [_as_array(d, 6) for d in dt_per_image]
    table = np.full((len(RECALL_POINTS), n_classes), -1.0)
    ap: list[float | None] = []
    recall: list[float | None] = []
    n_gt_all, n_det_all = [], []
    for c in range(n_classes):
        scores, hits = [], []
        n_gt = 0
        for g_img, d_img in zip(gts, dts):
            g = g_img[g_img[:, 0] == c, 1:] if len(g_img) else g_img[:, 1:]
            d = d_img[d_img[:, 0] == c] if len(d_img) else d_img
            if len(g) == 0 and len(d) == 0:
                continue
            n_gt += len(g)
            if len(d):
                order = np.argsort(-d[:, 1], kind="mergesort")[:max_dets]
                d = d[order]
                scores.append(d[:, 1])
                hits.append(match_detections(d[:, 2:], g, threshold))
        n_gt_all.append(n_gt)
        n_det_all.append(sum(len(s) for s in scores))
        if n_gt == 0:
            ap.append(None)
            recall.append(None)
            continue
        q = np.zeros(len(RECALL_POINTS))
        if scores:
            all_scores = np.concatenate(scores)
            order = np.argsort(-all_scores, kind="mergesort")
            tp_flags = np.concatenate(hits)[order]
            tp = np.cumsum(tp_flags).astype(float)
            fp = np.cumsum(~tp_flags).astype(float)
            rc = tp / n_gt
            pr = tp / (fp + tp + np.spacing(1))
            pr = np.maximum.accumulate(pr[::-1])[::-1]      # monotone precision envelope
            idx = np.searchsorted(rc, RECALL_POINTS, side="left")
            ok = idx < len(pr)
            q[ok] = pr[idx[ok]]
            recall.append(float(rc[-1]) if len(rc) else 0.0)
        else:
            recall.append(0.0)
        table[:, c] = q
        ap.append(float(np.mean(q)))
    valid = table[table > -1]
    value = float(np.mean(valid)) if valid.size else None
    return MapResult(value, ap, recall, n_gt_all, n_det_all)
