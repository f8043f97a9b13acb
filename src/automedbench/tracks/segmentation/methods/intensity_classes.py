#!/usr/bin/env python3
"""Classical segmentation by intensity classes, for any task of the track (no learning).

Usage:  python intensity_classes.py INPUT.nii.gz OUTDIR
Reads:  intensity_classes.json beside this file: {variant, organ_file, lesion_file, label_file,
        labels: [label values]} (the scripted reference agent writes it from track_options).
Writes: OUTDIR/<organ_file> + OUTDIR/<lesion_file> (organ_lesion) or OUTDIR/<label_file>
        (multiclass), uint8, the input's shape and affine.

Standalone (numpy, scipy, nibabel only). Channel 0 only; the volume is smoothed (Gaussian,
sigma 0.5 voxel for multiclass, 1 for the organ) and its intensities clustered with 1-D k-means (centres initialised evenly
between the 1st and 99th percentiles, 30 iterations):
multiclass    K labels -> K + 1 clusters; the darkest is background, the others take the label
              values in order of intensity (lowest value = darkest class).
organ_lesion  2 clusters; organ = the brighter one's largest connected component, holes
              filled; lesion = organ voxels more than 3 robust SDs (1.4826 MAD) from the organ's
              median intensity, components of at least 4 voxels.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import cast

import nibabel as nib
import numpy as np
from scipy import ndimage


def kmeans_1d(values: np.ndarray, k: int, iterations: int = 30) -> np.ndarray:
    """Sorted cluster centres of `values` (1-D k-means)."""
    lo, hi = np.percentile(values, [1, 99])
    centres = np.linspace(lo, hi, k)   # spread over the range: a large background cannot take every centre
    for _ in range(iterations):
        assign = np.abs(values[:, None] - centres[None]).argmin(axis=1)
        centres = np.array([values[assign == i].mean() if np.any(assign == i) else centres[i] for i in range(k)])
    return np.sort(centres)


def classes(volume: np.ndarray, k: int) -> np.ndarray:
    """Class index (0 = darkest) of every voxel among k intensity classes."""
    sample = volume.ravel()[:: max(1, volume.size // 200_000)]
    centres = kmeans_1d(sample.astype(np.float64), k)
    return np.abs(volume[..., None] - centres).argmin(axis=-1)


def largest_component(mask: np.ndarray) -> np.ndarray:
    lab, n = ndimage.label(mask)
    if n == 0:
        return mask
    sizes = ndimage.sum(mask, lab, range(1, n + 1))
    return lab == (int(np.argmax(sizes)) + 1)


def main(argv: list[str]) -> int:
    src, out = Path(argv[1]), Path(argv[2])
    cfg = json.loads((Path(__file__).parent / "intensity_classes.json").read_text())
    img = cast(nib.Nifti1Image, nib.load(str(src)))
    data = np.asarray(img.dataobj, dtype=np.float32)
    if data.ndim == 4:
        data = data[..., 0]
    out.mkdir(parents=True, exist_ok=True)

    def save(arr: np.ndarray, name: str) -> None:
        nib.save(nib.Nifti1Image(arr.astype(np.uint8), img.affine), str(out / name))

    if cfg["variant"] == "multiclass":
        values = sorted(int(v) for v in cfg["labels"])
        idx = classes(ndimage.gaussian_filter(data, 0.5), len(values) + 1)   # small classes survive
        lut = np.array([0, *values], dtype=np.uint8)
        save(lut[idx], cfg["label_file"])
        return 0
    organ = ndimage.binary_fill_holes(largest_component(classes(ndimage.gaussian_filter(data, 1.0), 2) == 1))
    inside = data[organ]
    lesion = np.zeros_like(organ)
    if inside.size:
        med = np.median(inside)
        sd = 1.4826 * np.median(np.abs(inside - med)) + 1e-6
        lesion = organ & (np.abs(ndimage.gaussian_filter(data, 0.7) - med) > 3 * sd)
        lab, n = ndimage.label(lesion)
        sizes = ndimage.sum(lesion, lab, range(1, n + 1))
        lesion = np.isin(lab, [i + 1 for i, s in enumerate(sizes) if s >= 4])
    save(organ, cfg["organ_file"])
    save(lesion, cfg["lesion_file"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
