#!/usr/bin/env python3
"""Classical brain + lesion segmentation of a skull-stripped T1-like volume.

Usage:  python brain_lesion_classical.py INPUT.nii.gz OUTDIR
Writes: OUTDIR/organ.nii.gz and OUTDIR/lesion.nii.gz (uint8 0/1, input shape and affine).

Standalone on purpose (numpy, scipy, nibabel only): the benchmark's scripted reference
agent copies and runs it inside the sandbox.  An honest classical baseline, no learning:

organ   smoothed intensity > a fraction of the Otsu threshold (background is Rician noise),
        opening, largest connected component, hole filling (3-D and slice-wise), closing;
        then re-thresholded at 0.22 of the white-matter level after bias correction.
bias    white matter = brightest of three intensity classes in the brain; a smooth
        multiplicative field is fitted to it by normalised Gaussian convolution and divided
        out, so that white matter reads ~1.0.
lesion  hyperintense: robust z-score outliers above white matter (hysteresis-grown).
        hypointense: dark (CSF-like) voxels away from the brain surface whose mirror image
        about the fitted mid-sagittal plane is white matter (left-right asymmetry; the
        ventricles and sulci are symmetric).  Components below a minimum size are dropped.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nibabel as nib
import numpy as np
from scipy import ndimage

MIN_LESION_VOXELS = 15


def otsu(values: np.ndarray, bins: int = 256) -> float:
    hist, edges = np.histogram(values, bins=bins)
    centres = (edges[:-1] + edges[1:]) / 2
    w0 = np.cumsum(hist)
    w1 = w0[-1] - w0
    m0 = np.cumsum(hist * centres)
    mu0 = m0 / np.maximum(w0, 1)
    mu1 = (m0[-1] - m0) / np.maximum(w1, 1)
    between = w0 * w1 * (mu0 - mu1) ** 2
    return float(centres[np.argmax(between)])


def largest_component(mask: np.ndarray) -> np.ndarray:
    lab, n = ndimage.label(mask)
    if n == 0:
        return mask
    sizes = ndimage.sum(mask, lab, index=np.arange(1, n + 1))
    return lab == (int(np.argmax(sizes)) + 1)


def fill_holes_slicewise(mask: np.ndarray) -> np.ndarray:
    out = ndimage.binary_fill_holes(mask)
    for axis in range(3):
        for i in range(mask.shape[axis]):
            sl = [slice(None)] * 3
            sl[axis] = i
            out[tuple(sl)] = ndimage.binary_fill_holes(out[tuple(sl)])
    return out


def brain_mask(img: np.ndarray) -> np.ndarray:
    smooth = ndimage.gaussian_filter(img, 1.0)
    t = otsu(smooth[smooth > np.percentile(smooth, 1)])
    mask = smooth > 0.3 * t
    ball = ndimage.generate_binary_structure(3, 1)
    mask = ndimage.binary_opening(mask, ball, iterations=2)
    mask = largest_component(mask)
    mask = fill_holes_slicewise(mask)
    mask = ndimage.binary_closing(mask, ball, iterations=2) | mask
    return fill_holes_slicewise(mask)


def refine_mask(norm: np.ndarray) -> np.ndarray:
    """Brain mask from a bias-corrected image (white matter ~ 1): CSF is ~0.45, noise ~0.03."""
    mask = ndimage.gaussian_filter(norm, 0.5) > 0.22
    mask = ndimage.binary_opening(mask, ndimage.generate_binary_structure(3, 1))
    return fill_holes_slicewise(largest_component(mask))


def kmeans_1d(x: np.ndarray, k: int = 3, iters: int = 50) -> np.ndarray:
    centres = np.quantile(x, np.linspace(0.15, 0.85, k))
    for _ in range(iters):
        lab = np.argmin(np.abs(x[:, None] - centres[None, :]), axis=1)
        new = np.array([x[lab == j].mean() if np.any(lab == j) else centres[j] for j in range(k)])
        if np.allclose(new, centres):
            break
        centres = new
    return np.sort(centres)


def smooth_field(values: np.ndarray, weights: np.ndarray, sigma: float) -> np.ndarray:
    """Normalised Gaussian convolution, computed on a 2x sub-sampled grid (the field is smooth)."""
    num = ndimage.gaussian_filter((values * weights)[::2, ::2, ::2], sigma / 2)
    den = ndimage.gaussian_filter(weights[::2, ::2, ::2], sigma / 2)
    fallback = float(np.sum(values * weights) / max(np.sum(weights), 1e-9))
    coarse = np.where(den > 1e-3, num / np.maximum(den, 1e-3), fallback)
    zoom = [n / c for n, c in zip(values.shape, coarse.shape)]
    return ndimage.zoom(coarse, zoom, order=1, mode="nearest", grid_mode=True)


def bias_correct(img: np.ndarray, brain: np.ndarray, sigma: float = 8.0) -> np.ndarray:
    """Return img / (smooth white-matter intensity field); white matter ~ 1.0."""
    out = img.astype(np.float64)
    for _ in range(2):
        smooth = ndimage.gaussian_filter(out, 0.7)
        c = kmeans_1d(smooth[brain][::3])
        wm = brain & (smooth > (c[1] + c[2]) / 2)
        field = smooth_field(out, wm.astype(np.float64), sigma)
        out = out / np.maximum(field, 1e-6)
    return out


def remove_small(mask: np.ndarray, min_size: int) -> np.ndarray:
    lab, n = ndimage.label(mask)
    if n == 0:
        return mask
    sizes = ndimage.sum(mask, lab, index=np.arange(1, n + 1))
    keep = np.zeros(n + 1, dtype=bool)
    keep[1:] = sizes >= min_size
    return keep[lab]


def _reflect(shape: tuple[int, ...], params: np.ndarray, step: int = 1) -> np.ndarray:
    """Coordinates of the mirror image of every (sub-sampled) voxel.

    The mirror plane passes through centre + (d, 0, 0) with a unit normal close to the first
    voxel axis, tilted by ``yaw`` (about axis 2) and ``roll`` (about axis 1).
    """
    d, yaw, roll = params
    centre = (np.asarray(shape, dtype=np.float64) - 1) / 2
    sub = tuple(int(np.ceil(n / step)) for n in shape)
    grid = np.indices(sub, dtype=np.float64).reshape(3, -1) * step
    normal = np.array([np.cos(yaw) * np.cos(roll), np.sin(yaw) * np.cos(roll), np.sin(roll)])
    point = centre + np.array([d, 0.0, 0.0])
    proj = ((grid - point[:, None]) * normal[:, None]).sum(axis=0)
    return grid - 2.0 * proj[None, :] * normal[:, None]


def left_right_axis(affine: np.ndarray) -> int:
    return int(np.argmax(np.abs(affine[0, :3])))


def mirror_image(smooth: np.ndarray, brain: np.ndarray) -> np.ndarray:
    """``smooth`` reflected about its best-fitting mid-sagittal plane (voxel axis 0 = L-R).

    The plane (offset, yaw, roll) minimises the squared difference between the brain and
    its reflection, searched with Powell's method on a 3x sub-sampled grid.
    """
    from scipy import optimize

    step = 3
    target = smooth[::step, ::step, ::step].ravel()
    inside = brain[::step, ::step, ::step].ravel()
    offset0 = ndimage.center_of_mass(brain)[0] - (brain.shape[0] - 1) / 2

    def cost(x: np.ndarray) -> float:
        v = ndimage.map_coordinates(smooth, _reflect(smooth.shape, x, step), order=1,
                                    mode="nearest")
        return float(np.mean((v - target)[inside] ** 2))

    res = optimize.minimize(cost, [offset0, 0.0, 0.0], method="Powell",
                            options={"xtol": 1e-2, "ftol": 1e-4, "maxfev": 150})
    coords = _reflect(smooth.shape, res.x)
    return ndimage.map_coordinates(smooth, coords, order=1, mode="nearest").reshape(smooth.shape)


def segment_lesions(norm: np.ndarray, brain: np.ndarray) -> np.ndarray:
    """Lesion mask from a bias-corrected image (white matter ~ 1) in LR-first voxel order."""
    smooth = ndimage.gaussian_filter(norm, 0.7)
    depth = ndimage.distance_transform_edt(brain)
    inner = brain & (depth > 3)
    c = kmeans_1d(smooth[brain][::3])
    wm = brain & (smooth > (c[1] + c[2]) / 2)
    wm_vals = smooth[wm]
    med = float(np.median(wm_vals))
    mad = 1.4826 * float(np.median(np.abs(wm_vals[wm_vals > med] - med)))  # upper spread
    # --- hyperintense: well above white matter (seed), grown to the half-way contour
    hi_seed = inner & (smooth > max(med + 3.0 * mad, med * 1.24))
    hi_grow = brain & (smooth > med * 1.17) & ndimage.binary_dilation(hi_seed, iterations=3)
    hyper = remove_small(ndimage.binary_propagation(hi_seed, mask=hi_grow), MIN_LESION_VOXELS)
    # --- hypointense: dark voxels whose mirror-side neighbourhood is bright white matter.
    # Ventricles and sulci are (nearly) symmetric, so they are dark on both sides; a lesion
    # in one hemisphere is not.  The mirror is min-filtered to tolerate misalignment.
    mirror_min = ndimage.minimum_filter(mirror_image(smooth, brain), size=5)
    seed = inner & (smooth < med * 0.72) & (mirror_min > med * 0.80)
    seed = remove_small(seed, 10)
    grow = brain & (smooth < med * 0.80) & ndimage.binary_dilation(seed, iterations=2)
    hypo = remove_small(ndimage.binary_propagation(seed, mask=grow | seed), MIN_LESION_VOXELS)
    return (hyper | hypo) & brain


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    src, outdir = Path(argv[1]), Path(argv[2])
    img_nii = nib.load(str(src))
    img = np.asarray(img_nii.dataobj, dtype=np.float64)
    if img.ndim != 3:
        print(f"expected a 3-D volume, got shape {img.shape}", file=sys.stderr)
        return 1
    norm = bias_correct(img, brain_mask(img))
    brain = refine_mask(norm)
    lr = left_right_axis(img_nii.affine)          # the mirror search assumes axis 0 = L-R
    lesion = np.swapaxes(segment_lesions(np.swapaxes(norm, 0, lr), np.swapaxes(brain, 0, lr)),
                         0, lr)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, mask in (("organ", brain), ("lesion", lesion)):
        out = nib.Nifti1Image(mask.astype(np.uint8), img_nii.affine)
        out.set_qform(img_nii.affine, code=int(img_nii.header["qform_code"]) or 1)
        out.set_sform(img_nii.affine, code=int(img_nii.header["sform_code"]) or 1)
        nib.save(out, str(outdir / f"{name}.nii.gz"))
    n_comp = ndimage.label(lesion)[1]
    print(f"{src.name}: organ={int(brain.sum())} voxels, lesion={int(lesion.sum())} voxels "
          f"in {n_comp} component(s), shape={img.shape}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
