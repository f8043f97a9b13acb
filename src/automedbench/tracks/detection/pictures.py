"""Detection pictures (docs/site.md "Pictures of outputs"): the reference boxes (green) and the
predicted ones (magenta) on the image, drawn at twice the size of a 256 px image so that a
marker a few pixels wide is seen. No text in the pixels: the counts, scores and metrics are in
the caption. A case whose prediction.json failed its check is drawn too, with its boxes as
written (read leniently: any box with four numbers; corners put in order and clipped to the
image to be drawn) and the reason in the caption, so a (x, y, w, h) mix-up or a box outside the
image is seen on the image it belongs to."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..pictures import (CasePicture, PictureCase, caption_of, metric_note, not_scored_note, panels, read_png_gray,
                        rgb_of)
from .boxes import COORDS, MAX_PREDICTION_BYTES, _number

REF, PRED = (22, 200, 60), (230, 40, 220)
DRAW_PX = 512            # the longer side of the drawn image (a 256 px image doubled)


def boxes_as_written(out_dir: Path | None, name: str) -> list[tuple[float, float, float, float]] | None:
    """The boxes of an output file whatever its faults (any object with four finite numbers x1, y1,
    x2, y2), or None when the file cannot be read as JSON with a list of boxes."""
    if out_dir is None:
        return None
    path = out_dir / name
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_PREDICTION_BYTES:
            return None
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    boxes = data.get("boxes") if isinstance(data, dict) else data if isinstance(data, list) else None
    if not isinstance(boxes, list):
        return None
    out: list[tuple[float, float, float, float]] = []
    for b in boxes:
        nums = [n for n in (_number(b.get(k)) for k in COORDS) if n is not None] if isinstance(b, dict) else []
        if len(nums) == 4:
            out.append((nums[0], nums[1], nums[2], nums[3]))
    return out


def _draw(gray: np.ndarray, ref: np.ndarray, pred: list[tuple[float, float, float, float]]) -> np.ndarray:
    from PIL import Image, ImageDraw
    h, w = gray.shape
    k = DRAW_PX / max(w, h)
    img = Image.fromarray(rgb_of(gray)).resize((max(1, round(w * k)), max(1, round(h * k))),
                                               Image.Resampling.BILINEAR)
    draw = ImageDraw.Draw(img)

    def rect(box: tuple[float, float, float, float], colour: tuple[int, int, int]) -> None:
        x1, y1, x2, y2 = box
        xa, xb = sorted((min(max(x1, 0), w), min(max(x2, 0), w)))
        ya, yb = sorted((min(max(y1, 0), h), min(max(y2, 0), h)))
        draw.rectangle([xa * k, ya * k, max(xb * k - 1, xa * k), max(yb * k - 1, ya * k)], outline=colour, width=2)

    for row in ref:
        rect(tuple(float(v) for v in row[1:5]), REF)  # type: ignore[arg-type]
    for box in pred:
        rect(box, PRED)
    return np.asarray(img)


def detection_pictures(case: PictureCase, image_file: str, output_file: str) -> list[CasePicture]:
    w, h = int(case.reference["width"]), int(case.reference["height"])
    gray = read_png_gray(case.public_dir / image_file)
    if gray is None or gray.shape != (h, w):
        gray = np.zeros((h, w), np.uint8)
    ref = case.reference["boxes"]
    if case.prediction is not None:
        pred = [tuple(float(v) for v in row[2:6]) for row in case.prediction]
        scores = sorted((float(row[1]) for row in case.prediction), reverse=True)
        label = (f"{len(pred)} predicted (scores {', '.join(f'{s:.2f}' for s in scores[:8])}"
                 f"{' …' if len(scores) > 8 else ''})" if pred else "no box predicted")
        note = metric_note(case.metrics)
    else:
        raw = boxes_as_written(case.output_dir, output_file)
        pred = list(raw or [])
        outside = sum(1 for x1, y1, x2, y2 in pred if min(x1, y1, x2, y2) < 0 or max(x1, x2) > w or max(y1, y2) > h)
        label = ("the prediction could not be read as boxes" if raw is None else
                 f"{len(pred)} box{'es' if len(pred) != 1 else ''} as written"
                 + (f", {outside} outside the {w}x{h} image (drawn at its edge)" if outside else ""))
        note = not_scored_note(case)
    tiles = [(_draw(gray, ref, pred), f"{label}; {len(ref)} ground-truth box{'' if len(ref) == 1 else 'es'}")]  # type: ignore[arg-type]
    return [CasePicture("boxes.png", panels(tiles, size=DRAW_PX),
                        caption_of("predicted (magenta) and ground-truth (green) boxes on the image", tiles, note))]
