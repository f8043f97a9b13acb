"""Detection's logic check (docs/tracks/detection.md "Logic check"): an image whose boxes miss
their references because of a geometric slip — mirrored, rotated, x and y swapped, written in
0-1 coordinates or at another scale — a bug that fails on some inputs. A box the method did
not find on a small set is accuracy, not such a bug: the core's cross-case comparison cannot
tell the two apart on a handful of images, this check can."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...metrics.detection_map import match_detections

Corners = np.ndarray     # (n, 4): x1, y1, x2, y2
Slip = Callable[[Corners, float, float], Corners]


def _ordered(x1: np.ndarray, y1: np.ndarray, x2: np.ndarray, y2: np.ndarray) -> Corners:
    return np.stack([np.minimum(x1, x2), np.minimum(y1, y2), np.maximum(x1, x2), np.maximum(y1, y2)], axis=1)


# what the slip did -> the boxes put back where they would be without it (w, h: the image size)
SLIPS: dict[str, Slip] = {
    "mirrored left-right": lambda b, w, h: _ordered(w - b[:, 2], b[:, 1], w - b[:, 0], b[:, 3]),
    "mirrored top-bottom": lambda b, w, h: _ordered(b[:, 0], h - b[:, 3], b[:, 2], h - b[:, 1]),
    "rotated 180 degrees": lambda b, w, h: _ordered(w - b[:, 2], h - b[:, 3], w - b[:, 0], h - b[:, 1]),
    "x and y swapped": lambda b, w, h: _ordered(b[:, 1], b[:, 0], b[:, 3], b[:, 2]),
    "in 0-1 coordinates": lambda b, w, h: b * np.array([w, h, w, h]),
    "at half the image's scale": lambda b, w, h: b * 2.0,
    "at twice the image's scale": lambda b, w, h: b / 2.0,
}


def _found(prediction: np.ndarray, gt: np.ndarray, iou: float, max_dets: int) -> int:
    """Reference boxes found (per class, the top `max_dets` by score), as score_case counts them."""
    tp = 0
    for c in np.unique(gt[:, 0]):
        d = prediction[prediction[:, 0] == c]
        d = d[np.argsort(-d[:, 1], kind="mergesort")[:max_dets]]
        tp += int(match_detections(d[:, 2:], gt[gt[:, 0] == c, 1:], iou).sum())
    return tp


def slip_explaining_misses(prediction: np.ndarray, reference: dict, iou: float, max_dets: int) -> str:
    """The slip that, undone, finds more of this image's reference boxes than the boxes as
    written and at least half of them; "" when none does (or nothing was missed)."""
    gt = reference["boxes"]
    if not len(gt) or not len(prediction):
        return ""
    found = _found(prediction, gt, iou, max_dets)
    if found == len(gt):
        return ""
    w, h = float(reference["width"]), float(reference["height"])
    for name, undo in SLIPS.items():
        moved = prediction.copy()
        moved[:, 2:] = undo(prediction[:, 2:], w, h)
        again = _found(moved, gt, iou, max_dets)
        if again > found and 2 * again >= len(gt):
            return (f"boxes {name}: found {found} of {len(gt)} ground-truth boxes as written, "
                    f"{again} with the slip undone")
    return ""
