"""Reading and checking detection boxes: the agent's prediction.json and our references.

`parse_prediction` is a strict checker: it never raises for bad agent output and returns one
line saying what is wrong (the first problem found), so a case fails its format check with a
reason the agent developer can act on.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..safety import safe_output_file

MAX_PREDICTION_BYTES = 5_000_000
COORDS = ("x1", "y1", "x2", "y2")
AGNOSTIC_CLASS = "abnormality"


def class_table(classes: list[str], class_agnostic: bool) -> dict[str, int]:
    """Accepted class name (case-folded) -> class index used for scoring.

    Class-agnostic tasks score every box as one class; the agent may name any listed class
    or "abnormality". Names outside the table are refused (never a silent new class)."""
    if class_agnostic:
        return {c.strip().casefold(): 0 for c in [*classes, AGNOSTIC_CLASS]}
    return {c.strip().casefold(): i for i, c in enumerate(classes)}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:             # an integer literal too large for a float
        return None
    return value if math.isfinite(value) else None


def parse_prediction(data: Any, width: int, height: int, table: dict[str, int],
                     max_boxes: int) -> tuple[np.ndarray | None, str]:
    """Rows (class_index, score, x1, y1, x2, y2) from a decoded prediction.json, or (None, reason)."""
    if not isinstance(data, dict) or "boxes" not in data:
        return None, 'expected a JSON object {"boxes": [...]}'
    boxes = data["boxes"]
    if not isinstance(boxes, list):
        return None, '"boxes" must be a list (empty for an image without findings)'
    if len(boxes) > max_boxes:
        return None, f"{len(boxes)} boxes (more than the {max_boxes} allowed per image)"
    rows = np.zeros((len(boxes), 6), dtype=np.float64)
    allowed = ", ".join(sorted(table))
    for i, box in enumerate(boxes):
        if not isinstance(box, dict):
            return None, f"box {i}: not an object"
        missing = [k for k in ("class", "score", *COORDS) if k not in box]
        if missing:
            return None, f"box {i}: missing {', '.join(missing)}"
        name = box["class"]
        if not isinstance(name, str) or name.strip().casefold() not in table:
            return None, f"box {i}: unknown class {name!r} (allowed: {allowed})"
        score = _number(box["score"])
        if score is None or not 0.0 <= score <= 1.0:
            return None, f"box {i}: score {box['score']!r} is not a finite number in [0, 1]"
        coords = [c for c in (_number(box[k]) for k in COORDS) if c is not None]
        if len(coords) != 4:
            return None, f"box {i}: coordinates must be finite numbers"
        x1, y1, x2, y2 = coords
        if x2 <= x1 or y2 <= y1:
            # positive x2/y2 below x1/y1 is the classic (x, y, w, h) mix-up: say so
            hint = " — looks like (x, y, w, h); boxes are corners (x1, y1, x2, y2)" if x2 > 0 and y2 > 0 else ""
            return None, f"box {i}: empty box x1={x1:g} x2={x2:g} y1={y1:g} y2={y2:g}{hint}"
        if x1 < 0 or y1 < 0 or x2 > width or y2 > height:
            return None, (f"box {i}: ({x1:g}, {y1:g}, {x2:g}, {y2:g}) lies outside the "
                          f"{width}x{height} image")
        rows[i] = (table[name.strip().casefold()], score, x1, y1, x2, y2)
    return rows, ""


def read_prediction(case_dir: Path, name: str, width: int, height: int, table: dict[str, int],
                    max_boxes: int) -> tuple[np.ndarray | None, str]:
    path, reason = safe_output_file(case_dir, name)
    if path is None:
        return None, reason
    if path.stat().st_size > MAX_PREDICTION_BYTES:
        return None, f"{name}: larger than {MAX_PREDICTION_BYTES // 1_000_000} MB (refused)"
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError:
        return None, f"{name}: not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, f"{name}: malformed JSON: {exc.msg} (line {exc.lineno})"
    except RecursionError:
        return None, f"{name}: JSON nested too deeply"
    except ValueError as exc:         # e.g. an integer literal longer than Python's digit limit
        return None, f"{name}: unreadable JSON: {str(exc)[:80]}"
    rows, reason = parse_prediction(data, width, height, table, max_boxes)
    return (rows, "") if rows is not None else (None, f"{name}: {reason}")


def reference_rows(boxes: list[dict[str, Any]], table: dict[str, int]) -> np.ndarray:
    """Ground-truth rows (class_index, x1, y1, x2, y2); an unknown class is a dataset fault."""
    rows = np.zeros((len(boxes), 5), dtype=np.float64)
    for i, b in enumerate(boxes):
        key = str(b["class"]).strip().casefold()
        if key not in table:
            raise ValueError(f"reference box class {b['class']!r} is not one of the task's classes")
        rows[i] = (table[key], *(float(b[k]) for k in COORDS))
    return rows


def none_found_why(gt: np.ndarray, prediction: np.ndarray, iou_threshold: float) -> str:
    """Why an image with reference boxes has none found, in one line (docs/tracks.md
    `extra["why"]`): no box predicted, or how near the nearest predicted box came (best IoU with
    any reference box, any class) and whether its class was another."""
    n = len(gt)
    if not len(prediction):
        return f"found 0 of {n} ground-truth box{'es' if n != 1 else ''}: no box predicted"
    g, d = gt[:, 1:5][:, None, :], prediction[:, 2:6][None, :, :]
    iw = np.clip(np.minimum(g[..., 2], d[..., 2]) - np.maximum(g[..., 0], d[..., 0]), 0, None)
    ih = np.clip(np.minimum(g[..., 3], d[..., 3]) - np.maximum(g[..., 1], d[..., 1]), 0, None)
    inter = iw * ih
    area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])  # noqa: E731
    iou = inter / np.maximum(area(g) + area(d) - inter, 1e-12)
    i, j = np.unravel_index(int(np.argmax(iou)), iou.shape)
    best = float(iou[i, j])
    other = " (of another class)" if best >= iou_threshold and gt[i, 0] != prediction[j, 0] else ""
    return (f"found 0 of {n} ground-truth box{'es' if n != 1 else ''}: {len(prediction)} predicted, "
            f"the nearest overlaps with IoU {best:.2f}{other} (needs {iou_threshold:g})")
