"""Stagers for the official enhancement datasets (never redistributed; staged from a local copy).

LDCT-SimNICT (``ldct-simnict``): paired low-dose / normal-dose CT volumes. The release is laid
out as two folders of identically named volumes; point ``source`` at the folder holding them
and, when the folder names differ from the defaults, name them (``low_dir``, ``full_dir``)::

    <source>/low_dose/<name>.nii.gz     low-dose (simulated non-ideal) CT, HU
    <source>/full_dose/<name>.nii.gz    the matching normal-dose CT, HU (same shape)

(``.nii``, ``.nii.gz`` and ``.npy`` volumes are read; 2-D files count as one slice.)

fastMRI SR (``fastmri-sr``): the fastMRI knee/brain HDF5 files (``<source>/**/*.h5``, each with
``reconstruction_rss`` (multi-coil) or ``reconstruction_esc`` (single-coil), shape
(slices, H, W)); the reference is the reconstruction slice, the input its ×2 block mean
(the same degradation as the demo, ``degrade.block_downsample``).

Both take ``slices_per_volume`` evenly spaced slices from the central 60 % of each volume
(default 4) and ``limit`` volumes at most, write the enhancement layout
(public ``input.npy`` + ``info.json``, private ``reference.npy``) and compute the bands
(bands.json) with the track's baselines. A volume that cannot be read or whose pair does not
match is skipped with its reason in ``provenance.skipped``; staging fails only when no
volume is usable.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, cast

import numpy as np

from ....data import DatasetError, DatasetPaths, write_manifest
from .. import degrade
from ..baselines import compute_bands

Progress = Callable[[int, int, str], None]

HOW_TO_GET_SIMNICT = ("LDCT-SimNICT is not redistributed: download it from its official "
                      "release, then stage it with source=<folder holding low_dose/ and full_dose/>.")
HOW_TO_GET_FASTMRI = ("fastMRI is not redistributed: request access at the official fastMRI "
                      "site (NYU Langone), download the knee or brain HDF5 files, then stage "
                      "them with source=<folder of .h5 files>.")


def _read_volume(path: Path) -> np.ndarray:
    if path.suffix == ".npy":
        arr = np.load(path, allow_pickle=False)
    else:
        import nibabel as nib
        arr = np.asarray(cast(nib.Nifti1Image, nib.load(str(path))).dataobj)
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3:
        raise ValueError(f"expected a 2-D or 3-D image, got shape {arr.shape}")
    return arr


def _slice_indices(n: int, k: int) -> list[int]:
    if n <= 1:
        return [0]
    lo, hi = int(n * 0.2), max(int(n * 0.8) - 1, int(n * 0.2))
    return sorted(set(np.linspace(lo, hi, num=min(k, n)).round().astype(int).tolist()))


def _write_case(paths: DatasetPaths, cid: str, low: np.ndarray, ref: np.ndarray, info: dict[str, Any]) -> None:
    for side, name, arr in (("public", "input.npy", low), ("private", "reference.npy", ref)):
        d = getattr(paths, side) / cid
        d.mkdir(parents=True, exist_ok=True)
        np.save(d / name, np.ascontiguousarray(arr, dtype=np.float32))
    (paths.public / cid / "info.json").write_text(json.dumps(
        {**info, "input_shape": list(low.shape), "output_shape": list(ref.shape)}, indent=2, sort_keys=True) + "\n")


def _volumes(source: Path, sub: str) -> dict[str, Path]:
    d = source / sub
    if not d.is_dir():
        return {}
    out = {}
    for p in sorted(d.iterdir()):
        if p.is_file() and (p.name.endswith((".nii", ".nii.gz", ".npy"))):
            out[p.name] = p
    return out


def stage_simnict(paths: DatasetPaths, source: str | Path | None = None, low_dir: str = "low_dose",
                  full_dir: str = "full_dose", slices_per_volume: int = 4, limit: int | None = None,
                  bands: bool = True, progress: Progress | None = None) -> dict[str, Any]:
    if source is None:
        raise DatasetError(f"ldct-simnict: no source given.\n{HOW_TO_GET_SIMNICT}")
    src = Path(source).expanduser()
    low, full = _volumes(src, low_dir), _volumes(src, full_dir)
    if not low or not full:
        raise DatasetError(f"ldct-simnict: expected volumes in {src / low_dir} and {src / full_dir}.\n{HOW_TO_GET_SIMNICT}")
    names = sorted(set(low) & set(full))
    skipped = {n: "no matching normal-dose volume" for n in sorted(set(low) - set(full))}
    skipped.update({n: "no matching low-dose volume" for n in sorted(set(full) - set(low))})
    if limit:
        names = names[: int(limit)]
    cases = []
    for i, name in enumerate(names):
        try:
            lv, fv = _read_volume(low[name]), _read_volume(full[name])
            if lv.shape != fv.shape:
                raise ValueError(f"shape mismatch {lv.shape} vs {fv.shape}")
        except Exception as exc:  # a corrupt file skips that volume only
            skipped[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
            continue
        stem = name.split(".")[0]
        for z in _slice_indices(lv.shape[2], slices_per_volume):
            ref = np.clip(fv[:, :, z], *degrade.HU_CLIP)
            if np.ptp(ref) <= 0:
                continue
            cid = f"{stem}_z{z:04d}"
            _write_case(paths, cid, np.clip(lv[:, :, z], *degrade.HU_CLIP), ref,
                        {"task": "denoise", "modality": "CT", "units": "HU"})
            cases.append({"case_id": cid, "variant": "denoise", "output_shape": list(ref.shape),
                          "source": f"{low_dir}/{name}#z{z}"})
        if progress:
            progress(i + 1, len(names), stem)
    if not cases:
        raise DatasetError(f"ldct-simnict: no usable volume pair under {src} (skipped: {skipped})")
    manifest = write_manifest(paths, dataset="ldct-simnict", cases=cases,
                              description="LDCT-SimNICT paired low-/normal-dose CT slices (staged locally)",
                              provenance={"source": str(src), "low_dir": low_dir, "full_dir": full_dir,
                                          "slices_per_volume": slices_per_volume, "skipped": skipped,
                                          "hu_clip": list(degrade.HU_CLIP)})
    if bands:
        compute_bands(paths.root)
    return manifest


def stage_fastmri_sr(paths: DatasetPaths, source: str | Path | None = None, slices_per_volume: int = 4,
                     limit: int | None = None, scale: int = 2, bands: bool = True,
                     progress: Progress | None = None) -> dict[str, Any]:
    if source is None:
        raise DatasetError(f"fastmri-sr: no source given.\n{HOW_TO_GET_FASTMRI}")
    src = Path(source).expanduser()
    files = sorted(src.rglob("*.h5")) if src.is_dir() else []
    if not files:
        raise DatasetError(f"fastmri-sr: no .h5 files under {src}.\n{HOW_TO_GET_FASTMRI}")
    try:
        import h5py
    except ImportError:
        raise DatasetError("fastmri-sr: staging needs h5py (pip install h5py)") from None
    if limit:
        files = files[: int(limit)]
    cases, skipped = [], {}
    for i, f in enumerate(files):
        try:
            with h5py.File(f, "r") as h:
                key = next((k for k in ("reconstruction_rss", "reconstruction_esc") if k in h), None)
                if key is None:
                    raise ValueError("no reconstruction_rss / reconstruction_esc dataset")
                ds = h[key]
                if ds.ndim != 3:
                    raise ValueError(f"{key} has shape {ds.shape}, expected (slices, H, W)")
                picks = _slice_indices(ds.shape[0], slices_per_volume)
                slices = {z: np.asarray(ds[z], dtype=np.float64) for z in picks}
        except Exception as exc:
            skipped[f.name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
            continue
        for z, img in slices.items():
            ref = degrade.crop_to_multiple(img, scale)
            if np.ptp(ref) <= 0:
                continue
            cid = f"{f.stem}_s{z:03d}"
            _write_case(paths, cid, degrade.block_downsample(ref, scale), ref,
                        {"task": "super_resolution", "modality": "MR", "scale": scale,
                         "degradation": f"mean of each {scale}x{scale} block", "source_key": key})
            cases.append({"case_id": cid, "variant": "super_resolution", "scale": scale,
                          "output_shape": list(ref.shape), "source": f"{f.name}:{key}[{z}]"})
        if progress:
            progress(i + 1, len(files), f.stem)
    if not cases:
        raise DatasetError(f"fastmri-sr: no usable file under {src} (skipped: {skipped})")
    manifest = write_manifest(paths, dataset="fastmri-sr", cases=cases,
                              description=f"fastMRI reconstructions, x{scale} block-average super-resolution (staged locally)",
                              provenance={"source": str(src), "slices_per_volume": slices_per_volume,
                                          "scale": scale, "skipped": skipped})
    if bands:
        compute_bands(paths.root)
    return manifest
