"""Embedded demo datasets for the enhancement track: real images, simulated degradation.

``ldct-demo`` (LDCT denoising): the two uncompressed real CT slices with a full HU range
shipped in ``pydicom-data`` / ``pydicom`` (693_UNCI.dcm 512², block-averaged to 256² = 0.96 mm
pixels; CT_small.dcm 128²), converted to HU and clipped to [-1024, 3071]. (eCT_Supplemental.dcm
is left out: a soft-tissue-only sample, -1024..~110 HU, on which no classical denoiser gets
near the others, so every run would flag it as a logic error.) Each case alternates the
source, draws an incident photon count I0 log-uniformly in [5e3, 2e4] per ray and simulates a
low-dose scan with projection-domain Poisson noise + FBP (see ``degrade.py``); the reference
is the noiseless FBP. Input and reference are then rotated by the same seeded multiple of 90°
and mirrored (parallel-beam FBP over 180 views 1° apart commutes with 90° rotations, so this
equals scanning the rotated slice). Input ``input.npy`` and reference are float32 HU.

``mri-sr-demo`` (MRI ×2 super-resolution): real MR slices — axial slices of the MNI152
2009 T1 template at 1 mm (nilearn; a population average, real anatomy) at seeded heights,
randomly mirrored left-right, and the two uncompressed MR slices in ``pydicom-data``
(MR-SIEMENS-DICOM-WithOverlays.dcm 484², MR2_UNCI.dcm 1024² block-averaged to 512²).
Input = 2×2 block mean of the reference (``degrade.block_downsample``).

Both: real anatomy, simulated degradation. Same seed → identical files. After writing the
cases the builder runs the track's baselines and writes ``bands.json`` (baselines.py).
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ....data import DatasetPaths, write_manifest
from ....data.pydicom_files import find_dicom
from .. import degrade
from ..baselines import compute_bands

Progress = Callable[[int, int, str], None]
LDCT_DATASET = "ldct-demo"
MRI_SR_DATASET = "mri-sr-demo"
GENERATOR_VERSION = 2   # 2: eCT dropped, seeded 90° rotations / mirroring
N_ANGLES = 180
DOSE_RANGE = (5e3, 2e4)
# (package, file): the package names only the manifest's `source` label; find_dicom finds the
# file offline (pydicom-data, then pydicom's own test files — never pydicom's downloader)
CT_SOURCES = (("pydicom-data", "693_UNCI.dcm", 0), ("pydicom", "CT_small.dcm", 0))
MR_DICOM_SOURCES = (("pydicom-data", "MR-SIEMENS-DICOM-WithOverlays.dcm"), ("pydicom-data", "MR2_UNCI.dcm"))


def _rescale(ds: Any) -> tuple[float, float]:
    """(slope, intercept), also from an enhanced CT's shared functional groups."""
    if "RescaleSlope" in ds:
        return float(ds.RescaleSlope), float(ds.RescaleIntercept)
    for group in ds.get("SharedFunctionalGroupsSequence", []):
        for item in group.get("PixelValueTransformationSequence", []):
            return float(item.RescaleSlope), float(item.RescaleIntercept)
    return 1.0, 0.0


def _pixel_mm(ds: Any) -> float:
    if "PixelSpacing" in ds:
        return float(ds.PixelSpacing[0])
    for group in ds.get("SharedFunctionalGroupsSequence", []):
        for item in group.get("PixelMeasuresSequence", []):
            return float(item.PixelSpacing[0])
    return 0.7


@lru_cache(maxsize=8)
def _ct_slice(name: str, frame: int) -> tuple[np.ndarray, float]:
    """(HU image float64, pixel size in mm), 512² slices block-averaged to 256²."""
    import pydicom

    ds = pydicom.dcmread(find_dicom(name))
    arr = ds.pixel_array
    arr = arr[frame] if arr.ndim == 3 else arr
    slope, intercept = _rescale(ds)
    hu = np.clip(arr.astype(np.float64) * slope + intercept, *degrade.HU_CLIP)
    px = _pixel_mm(ds)
    if hu.shape[0] >= 512:
        hu, px = degrade.block_downsample(degrade.crop_to_multiple(hu, 2), 2), px * 2
    return hu, px


@lru_cache(maxsize=8)
def _ct_sinogram(name: str, frame: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    hu, px = _ct_slice(name, frame)
    sino, theta = degrade.sinogram(hu, px, N_ANGLES)
    reference = degrade.fbp_hu(sino, theta, px, hu.shape[0])
    return sino, theta, reference, px


def _orient(image: np.ndarray, turns: int, mirror: bool) -> np.ndarray:
    out = np.rot90(image, turns)
    return np.ascontiguousarray(out[:, ::-1] if mirror else out)


def _case_rng(seed: int, dataset: str, index: int) -> np.random.Generator:
    return np.random.default_rng([seed, index, sum(dataset.encode())])


def _save(path: Path, arr: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.ascontiguousarray(arr, dtype=np.float32))


def _write_info(path: Path, info: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")


def _check_args(n_cases: int, seed: int) -> None:
    if not isinstance(n_cases, int) or not 1 <= n_cases <= 200:
        raise ValueError(f"n_cases must be an integer in 1..200, got {n_cases!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


def build_ldct_demo(paths: DatasetPaths, n_cases: int = 8, seed: int = 0, *,
                    progress: Progress | None = None, bands: bool = True) -> dict[str, Any]:
    _check_args(n_cases, seed)
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        package, name, frame = CT_SOURCES[i % len(CT_SOURCES)]
        sino, theta, reference, px = _ct_sinogram(name, frame)
        rng = _case_rng(seed, LDCT_DATASET, i)
        photons = float(np.exp(rng.uniform(np.log(DOSE_RANGE[0]), np.log(DOSE_RANGE[1]))))
        low = degrade.simulate_low_dose(sino, theta, px, reference.shape[0], photons, rng)
        turns, mirror = int(rng.integers(0, 4)), bool(rng.integers(0, 2))
        low, reference = (_orient(a, turns, mirror) for a in (low, reference))
        _save(paths.public / cid / "input.npy", low)
        _save(paths.private / cid / "reference.npy", reference)
        info = {"task": "denoise", "modality": "CT", "units": "HU", "pixel_spacing_mm": round(px, 4),
                "input_shape": list(low.shape), "output_shape": list(reference.shape)}
        _write_info(paths.public / cid / "info.json", info)
        cases.append({"case_id": cid, "variant": "denoise", "output_shape": list(reference.shape),
                      "source": f"{package}:{name}#frame{frame}",
                      "simulation": {"incident_photons": round(photons, 1), "n_angles": N_ANGLES,
                                     "rot90": turns, "mirrored": mirror}})
        if progress:
            progress(i + 1, n_cases, cid)
    provenance = {
        "real": "CT slices from the pydicom / pydicom-data test files (HU)",
        "simulated": ["projection-domain Poisson quantum noise (parallel beam, "
                      f"{N_ANGLES} views, I0 log-uniform in {list(DOSE_RANGE)}), FBP ramp filter",
                      "90° rotations / mirroring of input and reference together"],
        "reference": "FBP of the noiseless sinogram (same geometry)",
        "builder": f"automedbench.tracks.enhancement.data.demo.build_ldct_demo v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "inputs": ["input.npy", "info.json"],
        "references": ["reference.npy"]}
    manifest = write_manifest(paths, dataset=LDCT_DATASET, cases=cases, provenance=provenance,
                              description="LDCT denoising demo: real CT slices (pydicom), "
                                          "simulated low-dose projection noise")
    if bands:
        compute_bands(paths.root)
    return manifest


@lru_cache(maxsize=1)
def _mni_t1() -> np.ndarray:
    from nilearn import datasets

    return datasets.load_mni152_template(resolution=1).get_fdata(dtype=np.float32)


def _mr_dicom(name: str) -> np.ndarray:
    import pydicom

    ds = pydicom.dcmread(find_dicom(name))
    img = ds.pixel_array.astype(np.float64)
    if img.shape[0] > 512:
        img = degrade.block_downsample(degrade.crop_to_multiple(img, 2), 2)
    return img


def build_mri_sr_demo(paths: DatasetPaths, n_cases: int = 8, seed: int = 0, *,
                      progress: Progress | None = None, bands: bool = True) -> dict[str, Any]:
    _check_args(n_cases, seed)
    scale = 2
    cases = []
    n_dicom = min(len(MR_DICOM_SOURCES), max(0, n_cases - 1))
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        rng = _case_rng(seed, MRI_SR_DATASET, i)
        if i < n_cases - n_dicom:
            vol = _mni_t1()
            z = int(rng.integers(45, 140))
            ref = np.rot90(vol[:, :, z]).astype(np.float64)   # radiological display orientation
            flip = bool(rng.integers(0, 2))
            ref = ref[:, ::-1] if flip else ref
            source = f"nilearn:MNI152 T1 1mm axial z={z}{' mirrored' if flip else ''}"
        else:
            package, name = MR_DICOM_SOURCES[i - (n_cases - n_dicom)]
            ref = _mr_dicom(name)
            source = f"{package}:{name}"
        ref = degrade.crop_to_multiple(np.ascontiguousarray(ref), scale)
        low = degrade.block_downsample(ref, scale)
        _save(paths.public / cid / "input.npy", low)
        _save(paths.private / cid / "reference.npy", ref)
        _write_info(paths.public / cid / "info.json", {
            "task": "super_resolution", "modality": "MR", "scale": scale,
            "degradation": f"mean of each {scale}x{scale} block", "input_shape": list(low.shape),
            "output_shape": list(ref.shape)})
        cases.append({"case_id": cid, "variant": "super_resolution", "output_shape": list(ref.shape),
                      "scale": scale, "source": source})
        if progress:
            progress(i + 1, n_cases, cid)
    provenance = {
        "real": "MR slices: MNI152 2009 T1 template (nilearn) and pydicom-data MR test files",
        "simulated": [f"x{scale} down-sampling by {scale}x{scale} block averaging"],
        "reference": "the original slice (cropped to a multiple of the scale)",
        "builder": f"automedbench.tracks.enhancement.data.demo.build_mri_sr_demo v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "inputs": ["input.npy", "info.json"],
        "references": ["reference.npy"]}
    manifest = write_manifest(paths, dataset=MRI_SR_DATASET, cases=cases, provenance=provenance,
                              description="MRI x2 super-resolution demo: real MR slices, "
                                          "simulated block-average down-sampling")
    if bands:
        compute_bands(paths.root)
    return manifest
