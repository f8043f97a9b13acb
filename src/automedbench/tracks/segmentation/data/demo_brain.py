"""Embedded demo segmentation datasets: real MNI152 anatomy, simulated deformation/noise/lesions.

Both datasets are built OFFLINE from the MNI ICBM152 2009a (nonlinear, symmetric) T1
template and its brain / grey-matter / white-matter maps that ship inside the ``nilearn``
package (``nilearn.datasets.load_mni152_*``, resampled by nilearn to 2 mm: 99x117x95).

The anatomy is real (a population-average brain); everything that makes the cases differ
is simulated and seeded:

* a smooth random deformation per case: a small affine (rotation <= 4 deg, scaling <= 4 %,
  shift <= 2 voxels) plus a mild elastic field (Gaussian-RBF interpolated random grid,
  ~1.5 voxel displacement);
* intensity scaling to an arbitrary scanner range, a smooth multiplicative bias field
  (roughly +-10-25 % across the brain) and Rician noise (2-4 % of the white-matter signal);
* for ``mni-brain-lesion`` only: 1-3 ellipsoidal lesions with soft edges inserted in the
  white matter, either hypo- or hyperintense relative to the local white matter; about a
  third of the cases get no lesion at all (empty lesion mask).

The reference masks are the template's own maps pushed through the same deformation, so
they are anatomically plausible, but they are *not* expert annotations of a patient: the
datasets are for exercising the benchmark (can an agent produce correctly formatted,
sensible segmentations), not for claiming clinical performance.

Same seed -> byte-identical files (see :mod:`automedbench.tracks.nifti_io`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ....data import DatasetPaths, write_manifest
from ...nifti_io import make_nifti, save_nifti_gz

Progress = Callable[[int, int, str], None]

LESION_DATASET = "mni-brain-lesion"
TISSUE_DATASET = "mni-brain-tissue"
TISSUE_LABELS = {"1": "csf", "2": "grey_matter", "3": "white_matter"}
GENERATOR_VERSION = 2   # 2: bias sd 0.25, noise relative to WM signal, gzip level 3
BIAS_SD = 0.25          # -> multiplicative bias of roughly +-10-25 % across the brain

_SOURCE = ("MNI ICBM152 2009a nonlinear symmetric T1 template with brain, grey-matter and "
           "white-matter maps, as shipped in the nilearn package "
           "(nilearn.datasets.load_mni152_template / _brain_mask / _gm_template / "
           "_wm_template, resolution=2 mm)")


# --------------------------------------------------------------------------------------
# Source anatomy
# --------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _mni() -> dict[str, Any]:
    """The 2 mm MNI152 T1 template and maps (float32), loaded once per process."""
    from nilearn import datasets  # imported lazily: nilearn import is slow (~3 s)

    t1 = datasets.load_mni152_template(resolution=2)
    brain = datasets.load_mni152_brain_mask(resolution=2).get_fdata(dtype=np.float32)
    gm = datasets.load_mni152_gm_template(resolution=2).get_fdata(dtype=np.float32)
    wm = datasets.load_mni152_wm_template(resolution=2).get_fdata(dtype=np.float32)
    t1_data = t1.get_fdata(dtype=np.float32)
    t1_data = t1_data / max(float(t1_data.max()), 1e-6)
    gm = np.clip(gm, 0, 1) * (brain > 0)
    wm = np.clip(wm, 0, 1) * (brain > 0)
    csf = np.clip(1.0 - gm - wm, 0, 1) * (brain > 0)
    import nilearn

    return {"t1": t1_data, "brain": (brain > 0).astype(np.float32), "gm": gm, "wm": wm,
            "csf": csf, "affine": t1.affine.copy(), "nilearn_version": nilearn.__version__}


# --------------------------------------------------------------------------------------
# Simulation pieces (all deterministic given the rng)
# --------------------------------------------------------------------------------------
def _rbf_upsample(coarse: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Smoothly interpolate a coarse 3-D grid to ``shape`` (separable Gaussian RBF).

    Uses plain (non-BLAS) einsum so the result does not depend on thread count.
    """
    out = coarse.astype(np.float64)
    for axis, n in enumerate(shape):
        g = coarse.shape[axis]
        centres = np.linspace(0, n - 1, g)
        spacing = (n - 1) / max(g - 1, 1)
        x = np.arange(n)[:, None]
        w = np.exp(-0.5 * ((x - centres[None, :]) / (0.6 * spacing)) ** 2)
        w /= w.sum(axis=1, keepdims=True)
        out = np.moveaxis(np.einsum("ia,a...->i...", w, np.moveaxis(out, axis, 0),
                                    optimize=False), 0, axis)
    return out


def _rotation(angles: np.ndarray) -> np.ndarray:
    cx, cy, cz = np.cos(angles)
    sx, sy, sz = np.sin(angles)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ ry @ rx


def _random_warp(rng: np.random.Generator, shape: tuple[int, int, int], *,
                 max_rot_deg: float = 4.0, max_scale: float = 0.04, max_shift: float = 2.0,
                 elastic_sd: float = 1.5, grid: tuple[int, int, int] = (7, 8, 7)
                 ) -> tuple[np.ndarray, dict[str, Any]]:
    """Sampling coordinates (3, *shape): output voxel -> source voxel."""
    angles = np.deg2rad(rng.uniform(-max_rot_deg, max_rot_deg, 3))
    scales = 1.0 + rng.uniform(-max_scale, max_scale, 3)
    shift = rng.uniform(-max_shift, max_shift, 3)
    a = _rotation(angles) @ np.diag(scales)
    centre = (np.asarray(shape, dtype=np.float64) - 1) / 2
    grids = np.indices(shape, dtype=np.float64).reshape(3, -1) - centre[:, None]
    coords = (a @ grids + centre[:, None] + shift[:, None]).reshape((3,) + tuple(shape))
    for d in range(3):
        coords[d] += _rbf_upsample(rng.normal(0.0, elastic_sd, grid), shape)
    params = {"rotation_deg": np.rad2deg(angles).round(3).tolist(),
              "scale": scales.round(4).tolist(), "shift_vox": shift.round(3).tolist(),
              "elastic_sd_vox": elastic_sd}
    return coords, params


def _warp(vol: np.ndarray, coords: np.ndarray) -> np.ndarray:
    from scipy import ndimage
    return ndimage.map_coordinates(vol, coords, order=1, mode="nearest").astype(np.float32)


def _acquire(rng: np.random.Generator, t1: np.ndarray, brain: np.ndarray
             ) -> tuple[np.ndarray, dict[str, Any]]:
    """Scanner simulation: scale, bias field, Rician noise -> int16 image."""
    shape = t1.shape
    base = rng.uniform(600.0, 1200.0)                      # arbitrary scanner units
    bias = np.exp(_rbf_upsample(rng.normal(0.0, BIAS_SD, (3, 3, 3)), shape)).astype(np.float32)
    # white-matter signal ~ the 85th percentile of brain intensities (WM is the brightest class)
    wm_level = base * float(np.percentile(t1[brain > 0.5], 85))
    sigma = rng.uniform(0.02, 0.04) * wm_level
    signal = (t1 * base * bias).astype(np.float64)
    n1 = rng.normal(0.0, sigma, shape)
    n2 = rng.normal(0.0, sigma, shape)
    img = np.sqrt((signal + n1) ** 2 + n2 ** 2)            # Rician magnitude
    img = np.clip(np.rint(img), 0, np.iinfo(np.int16).max).astype(np.int16)
    return img, {"scale": round(base, 3), "noise_sigma": round(sigma, 3), "noise": "rician",
                 "bias_field": f"exp(smooth RBF field, grid sd {BIAS_SD})",
                 "bias_range_in_brain": [round(float(bias[brain > 0.5].min()), 3),
                                         round(float(bias[brain > 0.5].max()), 3)]}


def _ellipsoid_radius(shape: tuple[int, int, int], centre: np.ndarray, axes: np.ndarray,
                      rot: np.ndarray, box: tuple[slice, ...]) -> np.ndarray:
    """Normalised ellipsoid radius r (r<=1 inside) within ``box``."""
    idx = np.indices([s.stop - s.start for s in box], dtype=np.float64)
    for d in range(3):
        idx[d] += box[d].start - centre[d]
    local = np.einsum("ij,j...->i...", rot.T, idx, optimize=False)
    return np.sqrt(sum((local[d] / axes[d]) ** 2 for d in range(3)))


def _insert_lesions(rng: np.random.Generator, t1: np.ndarray, wm: np.ndarray,
                    brain: np.ndarray, n_lesions: int
                    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """Add ``n_lesions`` soft-edged ellipsoids inside the white matter.

    Returns (modified t1, lesion mask uint8, per-lesion parameters).
    """
    from scipy import ndimage
    shape = t1.shape
    wm_mask = wm > 0.5
    depth = ndimage.distance_transform_edt(wm_mask)
    out = t1.copy()
    mask = np.zeros(shape, dtype=bool)
    lesions: list[dict[str, Any]] = []
    wm_ref = float(np.median(t1[wm > 0.9]))
    attempts = 0
    while len(lesions) < n_lesions and attempts < 400:
        attempts += 1
        axes = rng.uniform(2.5, 5.5, 3)                    # semi-axes in voxels (5-11 mm)
        candidates = np.argwhere((depth >= 0.6 * axes.min() + 1) & ~ndimage.binary_dilation(
            mask, iterations=3))
        if len(candidates) == 0:
            break
        centre = candidates[rng.integers(len(candidates))].astype(np.float64)
        centre += rng.uniform(-0.5, 0.5, 3)
        rot = _rotation(rng.uniform(-np.pi, np.pi, 3))
        reach = int(np.ceil(axes.max() * 1.6)) + 1
        box = tuple(slice(max(0, int(c) - reach), min(n, int(c) + reach + 1))
                    for c, n in zip(centre, shape))
        r = _ellipsoid_radius(shape, centre, axes, rot, box)
        inside = (r <= 1.0) & (brain[box] > 0.5)
        if inside.sum() < 20 or wm_mask[box][inside].mean() < 0.85 or mask[box][inside].any():
            continue
        hyper = bool(rng.random() < 0.5)
        contrast = rng.uniform(1.30, 1.50) if hyper else rng.uniform(0.42, 0.58)
        edge = rng.uniform(0.06, 0.12)                     # soft edge width (fraction of r)
        member = 1.0 / (1.0 + np.exp((r - 1.0) / edge))
        texture = 1.0 + 0.04 * rng.standard_normal(r.shape)
        target = wm_ref * contrast * ndimage.gaussian_filter(texture, 1.0)
        region = out[box]
        out[box] = (region * (1.0 - member) + target * member).astype(np.float32)
        mask[box] |= inside
        lesions.append({"centre_vox": centre.round(2).tolist(), "semi_axes_vox": axes.round(2).tolist(),
                        "kind": "hyperintense" if hyper else "hypointense",
                        "contrast_vs_wm": round(float(contrast), 3),
                        "voxels": int(inside.sum())})
    return out, mask.astype(np.uint8), lesions


def _case_rng(seed: int, dataset: str, index: int) -> np.random.Generator:
    tag = int.from_bytes(dataset.encode()[:8].ljust(8, b"\0"), "little")
    return np.random.default_rng(np.random.SeedSequence([seed, tag, index]))


def _negative_cases(seed: int, n_cases: int) -> set[int]:
    """Indices of lesion-negative cases: round(n/3) of them (at least 1 when n >= 2)."""
    if n_cases < 2:
        return set()
    k = max(1, round(n_cases / 3))
    perm = np.random.default_rng(np.random.SeedSequence([seed, 0x4E4547])).permutation(n_cases)
    return {int(i) for i in perm[:k]}


def _check_args(n_cases: int, seed: int) -> None:
    if not isinstance(n_cases, int) or n_cases < 1:
        raise ValueError(f"n_cases must be a positive integer, got {n_cases!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


def _augment(rng: np.random.Generator, src: dict[str, Any], names: tuple[str, ...]
             ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    coords, warp_params = _random_warp(rng, src["t1"].shape)
    return {n: _warp(src[n], coords) for n in names}, warp_params


# --------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------
def build_mni_brain_lesion(paths: DatasetPaths, n_cases: int = 6, seed: int = 0, *,
                           progress: Progress | None = None) -> dict[str, Any]:
    """Binary organ (brain) + lesion segmentation cases; writes files and manifest."""
    _check_args(n_cases, seed)
    src = _mni()
    affine = src["affine"]
    negatives = _negative_cases(seed, n_cases)
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        rng = _case_rng(seed, LESION_DATASET, i)
        w, warp_params = _augment(rng, src, ("t1", "brain", "wm"))
        organ = (w["brain"] > 0.5)
        t1 = w["t1"] * organ
        wm = w["wm"] * organ
        n_les = 0 if i in negatives else int(rng.integers(1, 4))
        t1, lesion, lesions = _insert_lesions(rng, t1, wm, organ.astype(np.float32), n_les)
        image, acq = _acquire(rng, t1, organ.astype(np.float32))
        desc = "automedbench mni-brain-lesion: MNI152 anatomy, simulated"
        save_nifti_gz(make_nifti(image, affine, xform_code=4, descrip=desc),
                      paths.public / cid / "image.nii.gz")
        save_nifti_gz(make_nifti(organ.astype(np.uint8), affine, xform_code=4, descrip=desc),
                      paths.private / cid / "organ.nii.gz")
        save_nifti_gz(make_nifti(lesion, affine, xform_code=4, descrip=desc),
                      paths.private / cid / "lesion.nii.gz")
        positive = bool(lesion.any())
        cases.append({"case_id": cid, "lesion_positive": positive, "n_lesions": len(lesions),
                      "lesion_voxels": int(lesion.sum()), "organ_voxels": int(organ.sum()),
                      "simulation": {"deformation": warp_params, "acquisition": acq,
                                     "lesions": lesions}})
        if progress:
            progress(i + 1, n_cases, cid)
    provenance = {
        "source": _SOURCE, "nilearn_version": src["nilearn_version"],
        "real": "anatomy (MNI152 population-average T1) and the brain mask",
        "simulated": ["per-case affine + elastic deformation", "intensity scale",
                      "bias field", "Rician noise", "ellipsoidal white-matter lesions"],
        "builder": f"automedbench.data.demo_brain.build_mni_brain_lesion v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "voxel_size_mm": 2.0,
        "inputs": ["image.nii.gz"], "references": ["organ.nii.gz", "lesion.nii.gz"],
        "labels": {"organ": "brain (0/1)", "lesion": "simulated lesion (0/1)"},
    }
    return write_manifest(
        paths, dataset=LESION_DATASET,
        description=("Brain + lesion segmentation on T1-like volumes: real MNI152 anatomy, "
                     "simulated deformation/noise/lesions (demo data, not patients)."),
        cases=cases, provenance=provenance)


def tissue_labels(csf: np.ndarray, gm: np.ndarray, wm: np.ndarray, brain: np.ndarray
                  ) -> np.ndarray:
    """0 background, 1 CSF, 2 GM, 3 WM: argmax of the three probabilities inside the brain."""
    lab = (np.argmax(np.stack([csf, gm, wm]), axis=0) + 1).astype(np.uint8)
    lab[brain <= 0.5] = 0
    return lab


def build_mni_brain_tissue(paths: DatasetPaths, n_cases: int = 6, seed: int = 0, *,
                           progress: Progress | None = None) -> dict[str, Any]:
    """Multi-class tissue (CSF / GM / WM) segmentation cases; writes files and manifest."""
    _check_args(n_cases, seed)
    src = _mni()
    affine = src["affine"]
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        rng = _case_rng(seed, TISSUE_DATASET, i)
        w, warp_params = _augment(rng, src, ("t1", "brain", "gm", "wm", "csf"))
        brain = (w["brain"] > 0.5).astype(np.float32)
        labels = tissue_labels(w["csf"], w["gm"], w["wm"], brain)
        image, acq = _acquire(rng, w["t1"] * brain, brain)
        desc = "automedbench mni-brain-tissue: MNI152 anatomy, simulated"
        save_nifti_gz(make_nifti(image, affine, xform_code=4, descrip=desc),
                      paths.public / cid / "image.nii.gz")
        save_nifti_gz(make_nifti(labels, affine, xform_code=4, descrip=desc),
                      paths.private / cid / "labels.nii.gz")
        cases.append({"case_id": cid,
                      "label_voxels": {name: int((labels == int(k)).sum())
                                       for k, name in TISSUE_LABELS.items()},
                      "simulation": {"deformation": warp_params, "acquisition": acq}})
        if progress:
            progress(i + 1, n_cases, cid)
    provenance = {
        "source": _SOURCE, "nilearn_version": src["nilearn_version"],
        "real": "anatomy (MNI152 population-average T1) and tissue probability maps",
        "simulated": ["per-case affine + elastic deformation", "intensity scale",
                      "bias field", "Rician noise"],
        "label_derivation": ("inside the (deformed) brain mask, argmax of CSF, GM and WM "
                             "probabilities, CSF probability = 1 - GM - WM (clipped)"),
        "builder": f"automedbench.data.demo_brain.build_mni_brain_tissue v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "voxel_size_mm": 2.0,
        "inputs": ["image.nii.gz"], "references": ["labels.nii.gz"],
        "labels": dict(TISSUE_LABELS),
    }
    return write_manifest(
        paths, dataset=TISSUE_DATASET,
        description=("Brain tissue segmentation (CSF / grey matter / white matter) on T1-like "
                     "volumes: real MNI152 anatomy, simulated deformation/noise "
                     "(demo data, not patients)."),
        cases=cases, provenance=provenance)
