"""Classical ×s through-plane super-resolution, numpy + scipy + nibabel only.

    python zsr_classical.py CASE_DIR OUT_DIR

reads CASE_DIR/lowres.nii.gz and CASE_DIR/target_grid.json, writes OUT_DIR/sct.nii.gz on the
target grid (shape and affine from target_grid.json, float32):
  1. cubic-spline interpolation along z through the low-resolution slice centres (thin
     slice i of the target grid sits at low-resolution coordinate (i − (s−1)/2) / s; beyond
     the first/last centre the edge value is held);
  2. iterative back-projection (Irani & Peleg 1991) with the known slab-average model:
     re-degrade the estimate (mean of each s slices), interpolate the residual the same way,
     add; 5 iterations; values below the input's minimum (spline ringing) are clipped.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import cast

import nibabel as nib
import numpy as np
from scipy.interpolate import make_interp_spline


def upsample_z(low: np.ndarray, scale: int, n_out: int) -> np.ndarray:
    centres = np.arange(low.shape[2]) * scale + (scale - 1) / 2.0
    pos = np.clip(np.arange(n_out, dtype=np.float64), centres[0], centres[-1])
    if low.shape[2] < 4:
        return np.stack([np.interp(pos, centres, v) for v in low.reshape(-1, low.shape[2])]).reshape(
            low.shape[:2] + (n_out,))
    spline = make_interp_spline(centres, low, k=3, axis=2)
    return spline(pos)


def slab_average(vol: np.ndarray, scale: int) -> np.ndarray:
    x, y, z = vol.shape
    return vol.reshape(x, y, z // scale, scale).mean(axis=3)


def super_resolve(low: np.ndarray, scale: int, n_out: int, n_iter: int = 5) -> np.ndarray:
    est = upsample_z(low, scale, n_out)
    for _ in range(n_iter):
        est += upsample_z(low - slab_average(est, scale), scale, n_out)
    return np.maximum(est, low.min())   # spline overshoot below the darkest input value is ringing


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__)
        return 2
    case, out = Path(argv[1]), Path(argv[2])
    img = cast(nib.Nifti1Image, nib.load(str(case / "lowres.nii.gz")))
    low = np.asarray(img.dataobj, dtype=np.float64)
    grid = json.loads((case / "target_grid.json").read_text())
    shape, scale = tuple(grid["shape"]), int(grid["scale_z"])
    vol = super_resolve(low, scale, shape[2]).astype(np.float32)
    assert vol.shape == shape, (vol.shape, shape)
    assert np.isfinite(vol).all(), "non-finite output"
    out.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(vol, np.array(grid["affine"], dtype=np.float64)), str(out / "sct.nii.gz"))
    print(case.name, "in", low.shape, "out", vol.shape, "range", float(vol.min()), float(vol.max()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
