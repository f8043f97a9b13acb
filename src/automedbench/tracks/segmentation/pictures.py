"""Segmentation pictures (docs/site.md "Pictures of outputs"): on the slice where prediction and
reference differ most, the reference contour (green) and the prediction's (magenta) over the
image, one panel per output file."""
from __future__ import annotations


import numpy as np

from ..nifti_io import read_nifti
from ..pictures import CasePicture, PictureCase, outline, paint, panels, rgb_of, window

REF, PRED = (22, 200, 60), (230, 40, 220)


def most_different_slice(pred: np.ndarray, ref: np.ndarray) -> int:
    """Index along the last axis with the most disagreeing voxels (else the most reference)."""
    axes = tuple(range(pred.ndim - 1))
    diff = np.count_nonzero(pred != ref, axis=axes)
    if diff.any():
        return int(np.argmax(diff))
    return int(np.argmax(np.count_nonzero(ref, axis=axes)))


def segmentation_pictures(case: PictureCase, input_file: str) -> list[CasePicture]:
    pred: dict[str, np.ndarray] = case.prediction
    ref: dict[str, np.ndarray] = case.reference
    image: np.ndarray | None
    try:
        image, _ = read_nifti(case.public_dir / input_file)
    except Exception:  # noqa: BLE001 - contours alone still show the disagreement
        image = None
    tiles: list[tuple[np.ndarray, str]] = []
    for name, p in pred.items():
        r = ref[name]
        if p.ndim == 2:
            p, r = p[..., None], r[..., None]
        k = most_different_slice(p, r)
        base = image if image is not None and image.shape[:3] == p.shape[:3] else np.zeros(p.shape[:3])
        b = base[..., k] if base.ndim == 3 else base[..., k, 0] if base.ndim == 4 else base
        rgb = rgb_of(window(b))
        rgb = paint(rgb, outline(r[..., k] > 0), REF)
        rgb = paint(rgb, outline(p[..., k] > 0), PRED)
        # radiological orientation is not the point here: rows = first axis, as stored
        tiles.append((np.rot90(rgb), f"{name.split('.')[0]} z={k}"))
    note = "green: reference · magenta: prediction · " + ", ".join(
        f"{m} {v:.3g}" for m, v in case.metrics.items() if v is not None)
    return [CasePicture("contours.png", panels(tiles, note), "prediction (magenta) and reference (green) "
                        "contours on the slice where they differ most")]


