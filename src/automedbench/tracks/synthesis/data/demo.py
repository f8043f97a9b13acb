"""Embedded demo for the synthesis track: ×4 z super-resolution of a real 3-D volume.

No real CT VOLUME ships in any registry package we found (pydicom / pydicom-data hold single
CT slices and 16×16 thumbnails; nilearn, dipy and nibabel ship MRI), so the demo uses the
MNI152 2009 T1 template at 1 mm (nilearn; real anatomy, a population average): each case is a
half-head sub-volume (all 197 voxels left-right, one half front-to-back (116 voxels), 96
slices starting at a seeded height), randomly mirrored left-right, intensities as shipped
([0, 1]). It is degraded ×4 along z by slab averaging + decimation (``zsr.slab_average``).
The CT ×4 z-SR task runs on CT-ORG / MSD pancreas / TotalSegmentator staged locally
(data/official.py). Honest name: real MRI anatomy, simulated thick slices.

Per case: public ``lowres.nii.gz`` (float32, low-resolution grid) + ``target_grid.json``
(reference shape and affine, scale, degradation); private ``reference.nii.gz`` (float32).
The manifest records each case's ``baseline_ssim`` (linear z-interpolation), which the
aggregate uses for "fail below the task's baseline".
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ....data import DatasetPaths, write_manifest
from ...nifti_io import make_nifti, save_nifti_gz
from ....metrics.ssim import reference_data_range, ssim
from .. import zsr

Progress = Callable[[int, int, str], None]
DATASET = "mni-zsr-demo"
GENERATOR_VERSION = 1
SCALE = 4
N_SLICES = 96


@lru_cache(maxsize=1)
def _mni() -> tuple[np.ndarray, np.ndarray]:
    from nilearn import datasets

    img = datasets.load_mni152_template(resolution=1)
    return img.get_fdata(dtype=np.float32), img.affine.copy()


def write_zsr_case(paths: DatasetPaths, cid: str, reference: np.ndarray, affine: np.ndarray, scale: int,
                   descrip: str, hu_clip: tuple[float, float] | None = None) -> dict[str, Any]:
    """Write one z-SR case (public low-res + grid, private reference); return its manifest meta."""
    ref = zsr.crop_z(np.asarray(reference, dtype=np.float32), scale)
    low = zsr.slab_average(ref.astype(np.float64), scale).astype(np.float32)
    low_aff = zsr.lowres_affine(affine, scale)
    save_nifti_gz(make_nifti(low, low_aff, descrip=descrip), paths.public / cid / "lowres.nii.gz")
    save_nifti_gz(make_nifti(ref, affine, descrip=descrip), paths.private / cid / "reference.nii.gz")
    grid = {"shape": list(ref.shape), "affine": np.round(np.asarray(affine, dtype=np.float64), 6).tolist(),
            "scale_z": scale, "degradation": f"mean of each run of {scale} consecutive slices along z, then decimation",
            "input_shape": list(low.shape)}
    (paths.public / cid / "target_grid.json").write_text(json.dumps(grid, indent=2) + "\n")
    r64 = ref.astype(np.float64)
    base = zsr.linear_baseline(low.astype(np.float64), scale, ref.shape[2])
    if hu_clip:
        r64, base = np.clip(r64, *hu_clip), np.clip(base, *hu_clip)
    return {"case_id": cid, "shape": list(ref.shape), "scale": scale,
            "baseline_ssim": round(ssim(r64, base, reference_data_range(r64)), 6)}


def build_mni_zsr(paths: DatasetPaths, n_cases: int = 4, seed: int = 0, *,
                  progress: Progress | None = None) -> dict[str, Any]:
    if not isinstance(n_cases, int) or not 1 <= n_cases <= 50:
        raise ValueError(f"n_cases must be an integer in 1..50, got {n_cases!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    vol, affine = _mni()
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        rng = np.random.default_rng([seed, i, 7001])
        z0 = int(rng.integers(20, vol.shape[2] - N_SLICES - 10))
        back = bool(rng.integers(0, 2))
        flip = bool(rng.integers(0, 2))
        y0 = vol.shape[1] - 116 if back else 0
        sub = vol[:, y0:y0 + 116, z0:z0 + N_SLICES]
        # the sub-volume's own affine: shift the origin to its first voxel (and mirror x if flipped)
        shift = np.eye(4)
        shift[:3, 3] = [vol.shape[0] - 1 if flip else 0, y0, z0]
        if flip:
            shift[0, 0] = -1
            sub = sub[::-1]
        meta = write_zsr_case(paths, cid, np.ascontiguousarray(sub), affine @ shift, SCALE,
                              "automedbench mni-zsr-demo: MNI152 T1, simulated thick slices")
        meta.update({"variant": "ct_zsr", "source": f"nilearn:MNI152 T1 1mm y{y0}+116 z{z0}+{N_SLICES}"
                                                      f"{' mirrored' if flip else ''}"})
        cases.append(meta)
        if progress:
            progress(i + 1, n_cases, cid)
    provenance = {
        "real": "anatomy: MNI152 2009 T1 template, 1 mm (nilearn)",
        "simulated": [f"x{SCALE} thick slices along z: slab average of {SCALE} slices + decimation"],
        "why_not_ct": "no real CT volume ships in a registry package; the CT task is staged from "
                      "CT-ORG / MSD pancreas / TotalSegmentator",
        "baseline": "linear z-interpolation (baseline_ssim per case)",
        "builder": f"automedbench.tracks.synthesis.data.demo.build_mni_zsr v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "inputs": ["lowres.nii.gz", "target_grid.json"],
        "references": ["reference.nii.gz"]}
    return write_manifest(paths, dataset=DATASET, cases=cases, provenance=provenance,
                          description="x4 z super-resolution demo: real MRI anatomy (MNI152), simulated thick slices")


