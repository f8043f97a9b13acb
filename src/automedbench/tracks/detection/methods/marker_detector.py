"""Classical radiopaque-marker detector (the reference method of the xray-markers task).

Markers are small, round and denser (brighter) than anything around them, so:
  1. white top-hat (image minus its grey opening with a 25 px disc) keeps bright structures
     smaller than the disc and removes bones, soft tissue and gradients;
  2. threshold the top-hat (0.12 of the 8-bit range) and label connected components;
  3. keep roughly round components 6-34 px across (bounding box aspect <= 1.4, filled
     fraction of the box 0.6-0.95 — a disc/annulus covers ~pi/4 of its box);
  4. class: `ring` when filling the holes adds >= 15 % to the component (a hollow centre),
     else `marker`; score = mean top-hat contrast x roundness, clipped to [0, 1];
  5. box = the component's bounding box in pixel corner coordinates (x2 = last column + 1).
Needs numpy, scipy and pillow. Usage: python marker_detector.py IMAGE.png OUT_DIR [CLASS]
(with CLASS, every box gets that class: a task with one class of small bright objects).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from scipy import ndimage

DISC = 25
THRESHOLD = 0.12


def disc(size: int) -> np.ndarray:
    r = (size - 1) / 2
    yy, xx = np.mgrid[:size, :size]
    return (yy - r) ** 2 + (xx - r) ** 2 <= r * r


def detect(img: np.ndarray) -> list[dict[str, Any]]:
    """Boxes as dicts {class, score, x1, y1, x2, y2} for one float image in [0, 1]."""
    tophat = img - ndimage.grey_opening(img, footprint=disc(DISC))
    labels, n = ndimage.label(tophat > THRESHOLD)
    boxes: list[dict[str, Any]] = []
    for i, sl in enumerate(ndimage.find_objects(labels), start=1):
        if sl is None:
            continue
        comp = labels[sl] == i
        h, w = comp.shape
        if not (6 <= h <= 34 and 6 <= w <= 34) or max(h, w) / min(h, w) > 1.4:
            continue
        filled = ndimage.binary_fill_holes(comp)
        fill_ratio = filled.sum() / (h * w)
        if not 0.6 <= fill_ratio <= 0.95:
            continue
        hollow = (filled.sum() - comp.sum()) / filled.sum()
        roundness = 1.0 - abs(fill_ratio - np.pi / 4) / (np.pi / 4)
        contrast = float(tophat[sl][comp].mean())
        score = float(np.clip(contrast * 2.0 * roundness, 0.0, 1.0))
        boxes.append({"class": "ring" if hollow >= 0.15 else "marker", "score": round(score, 4),
                      "x1": int(sl[1].start), "y1": int(sl[0].start),
                      "x2": int(sl[1].stop), "y2": int(sl[0].stop)})
    return sorted(boxes, key=lambda b: -b["score"])


def main(argv: list[str]) -> int:
    image, out_dir = Path(argv[1]), Path(argv[2])
    img = np.asarray(Image.open(image).convert("L"), dtype=np.float32) / 255.0
    boxes = detect(img)
    if len(argv) > 3:   # one class for every box
        boxes = [{**b, "class": argv[3]} for b in boxes]
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "prediction.json").write_text(json.dumps({"boxes": boxes}))
    print(f"{image.parent.name}: {len(boxes)} boxes, image {img.shape[1]}x{img.shape[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
