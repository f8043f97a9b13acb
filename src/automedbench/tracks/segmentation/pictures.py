"""Segmentation pictures (docs/site.md "Pictures of outputs"): per output file, the reference
contour (green) and the prediction's (magenta) over the image on the reference's largest slice
— chosen from the reference alone, so two runs of a case are drawn on the same slice — and,
when it lies elsewhere, on the slice of the prediction's largest disagreement. A file whose
reference is empty is drawn on the slice of the case's largest reference (another file's),
never on an arbitrary edge slice."""
from __future__ import annotations

import numpy as np

from ..nifti_io import read_nifti
from ..pictures import (CasePicture, PictureCase, caption_of, metric_note, not_scored_note, outline, paint, panels,
                        rgb_of, window)

REF, PRED = (22, 200, 60), (230, 40, 220)


def _per_slice(mask: np.ndarray) -> np.ndarray:
    """Voxels of `mask` on each slice of the last axis."""
    return np.count_nonzero(mask, axis=tuple(range(mask.ndim - 1)))


def case_slice(refs: list[np.ndarray]) -> int:
    """The slice of the case's largest reference (over every file), else the middle one: a
    choice that depends on the reference only, the same for every run of the case."""
    for r in sorted(refs, key=lambda a: -int(np.count_nonzero(a))):
        if r.any():
            return int(np.argmax(_per_slice(r > 0)))
    return refs[0].shape[-1] // 2 if refs else 0


def slices_for(pred: np.ndarray, ref: np.ndarray, fallback: int) -> list[tuple[int, str]]:
    """(slice, why) to draw one file on: the reference's largest slice (else `fallback`), and,
    if different, the prediction's largest disagreement: the slice with the most spurious
    voxels, else the one with the most missed voxels."""
    p, r = pred > 0, ref > 0
    first = int(np.argmax(_per_slice(r))) if r.any() else fallback
    out = [(first, "largest ground truth" if r.any() else "no ground truth here")]
    spurious, missed = _per_slice(p & ~r), _per_slice(r & ~p)
    pick = (spurious, "most spurious") if spurious.any() else (missed, "most missed") if missed.any() else None
    if pick is not None and int(np.argmax(pick[0])) != first:
        out.append((int(np.argmax(pick[0])), pick[1]))
    return out


def segmentation_pictures(case: PictureCase, input_file: str) -> list[CasePicture]:
    """Contours per file; a case whose output failed its check: the reference's contours alone,
    on the same slices, with the reason in the caption."""
    ref: dict[str, np.ndarray] = case.reference
    pred: dict[str, np.ndarray] = case.prediction if case.prediction is not None else \
        {name: np.zeros(np.shape(r), dtype=bool) for name, r in ref.items()}
    image: np.ndarray | None
    try:
        image, _ = read_nifti(case.public_dir / input_file)
    except Exception:  # noqa: BLE001 - contours alone still show the disagreement
        image = None
    vols = {name: (p[..., None], ref[name][..., None]) if p.ndim == 2 else (p, ref[name]) for name, p in pred.items()}
    fallback = case_slice([r for _, r in vols.values()])
    tiles: list[tuple[np.ndarray, str]] = []
    for name, (p, r) in vols.items():
        base = image if image is not None and image.shape[:3] == p.shape[:3] else np.zeros(p.shape[:3])
        for k, why in slices_for(p, r, fallback):
            b = base[..., k] if base.ndim == 3 else base[..., k, 0] if base.ndim == 4 else base
            rgb = rgb_of(window(b))
            rgb = paint(rgb, outline(r[..., k] > 0), REF)
            rgb = paint(rgb, outline(p[..., k] > 0), PRED)
            # radiological orientation is not the point here: rows = first axis, as stored
            tiles.append((np.rot90(rgb), f"{name.split('.')[0]} slice {k} ({why})"))
    what = "ground truth (green) and prediction (magenta) contours" if case.prediction is not None else \
        "ground-truth contours (green); the output was not scored, so no prediction is drawn"
    return [CasePicture("contours.png", panels(tiles),
                        caption_of(what, tiles, not_scored_note(case) or metric_note(case.metrics)))]
