"""Stagers for the official synthesis datasets (never redistributed; staged from local copies).

CT ×4 z super-resolution (`stage_ct_zsr`, three sources, one layout each)::

    ctorg-zsr         CT-ORG (TCIA):            <source>/**/volume-<n>.nii.gz
    msd-pancreas-zsr  MSD Task07_Pancreas:      <source>/imagesTr/pancreas_<n>.nii.gz (+ imagesTs/)
    totalseg-zsr      TotalSegmentator v2:      <source>/s<nnnn>/ct.nii.gz

Each CT volume (HU) becomes one case: the reference is the volume cropped to a multiple of 4
slices (float32), the input its ×4 slab average (synthesis/zsr.py), with target_grid.json;
the manifest records the linear-interpolation baseline SSIM (HU clipped to [-1024, 3071]).
Volumes above ``max_voxels`` (default 64 M) are skipped (the reason is recorded).

MRI→CT (`stage_synthrad2025`), SynthRAD2025 Task 1::

    <source>/Task1/<region AB|HN|TH>/<patient>/mr.mha, ct.mha, mask.mha

public ``mr.nii.gz`` + ``mask.nii.gz`` + ``target_grid.json`` (the CT grid), private
``reference.nii.gz`` (CT, HU); baseline = bulk density (−1000 HU outside the mask, 0 HU
inside), SSIM with HU clipped to [-1024, 3000] (SynthRAD's range). No MRI→CT demo exists: no
registry package ships an honestly PAIRED MRI/CT volume, so this task is stager-only.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, cast

import numpy as np

from ....data import DatasetError, DatasetPaths, write_manifest
from ...nifti_io import make_nifti, save_nifti_gz
from ....metrics.ssim import reference_data_range, ssim
from ..mha import read_mha
from .demo import write_zsr_case

Progress = Callable[[int, int, str], None]
CT_CLIP = (-1024.0, 3071.0)
SYNTHRAD_CLIP = (-1024.0, 3000.0)
SOURCES = {
    "ctorg-zsr": ("CT-ORG", ["**/volume-*.nii.gz", "**/volume-*.nii"]),
    "msd-pancreas-zsr": ("MSD Task07_Pancreas", ["**/imagesTr/pancreas_*.nii.gz", "**/imagesTs/pancreas_*.nii.gz"]),
    "totalseg-zsr": ("TotalSegmentator", ["*/ct.nii.gz", "**/s[0-9][0-9][0-9][0-9]/ct.nii.gz"]),
}
HOW_TO_GET = ("{what} is not redistributed by AutoMedBench: download it from its official source "
              "and stage it with source=<path to the local copy> (layout in "
              "automedbench/tracks/synthesis/data/official.py).")


def _case_name(path: Path, dataset: str) -> str:
    if dataset == "totalseg-zsr":
        return path.parent.name
    return path.name.split(".")[0]


def stage_ct_zsr(paths: DatasetPaths, dataset: str, source: str | Path | None = None, scale: int = 4,
                 limit: int | None = None, max_voxels: int = 64_000_000,
                 progress: Progress | None = None) -> dict[str, Any]:
    import nibabel as nib

    what, patterns = SOURCES[dataset]
    if source is None:
        raise DatasetError(f"{dataset}: no source given.\n{HOW_TO_GET.format(what=what)}")
    src = Path(source).expanduser()
    files = sorted({p for pat in patterns for p in src.glob(pat) if p.is_file()}) if src.is_dir() else []
    if not files:
        raise DatasetError(f"{dataset}: no volumes matching {patterns} under {src}.\n{HOW_TO_GET.format(what=what)}")
    if limit:
        files = files[: int(limit)]
    cases, skipped = [], {}
    for i, f in enumerate(files):
        cid = _case_name(f, dataset)
        try:
            img = cast(nib.Nifti1Image, nib.load(str(f)))
            if len(img.shape) != 3:
                raise ValueError(f"expected a 3-D volume, got shape {img.shape}")
            if int(np.prod(img.shape)) > max_voxels:
                raise ValueError(f"{int(np.prod(img.shape))} voxels > max_voxels={max_voxels}")
            if img.shape[2] < 4 * scale:
                raise ValueError(f"only {img.shape[2]} slices")
            vol = np.asarray(img.dataobj, dtype=np.float32)
            meta = write_zsr_case(paths, cid, vol, img.affine, scale, f"automedbench {dataset}", hu_clip=CT_CLIP)
        except Exception as exc:  # one bad volume never stops staging
            skipped[f.name if dataset != "totalseg-zsr" else cid] = \
                f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
            continue
        meta.update({"variant": "ct_zsr", "source": str(f.relative_to(src))})
        cases.append(meta)
        if progress:
            progress(i + 1, len(files), cid)
    if not cases:
        raise DatasetError(f"{dataset}: no usable volume under {src} (skipped: {skipped})")
    return write_manifest(paths, dataset=dataset, cases=cases,
                          description=f"{what} CT, x{scale} z super-resolution (slab average), staged locally",
                          provenance={"source": str(src), "scale": scale, "skipped": skipped,
                                      "baseline": "linear z-interpolation, SSIM on HU clipped to "
                                                  f"{list(CT_CLIP)}"})


def stage_ctorg(paths: DatasetPaths, **kw: Any) -> dict[str, Any]:
    return stage_ct_zsr(paths, "ctorg-zsr", **kw)


def stage_msd_pancreas(paths: DatasetPaths, **kw: Any) -> dict[str, Any]:
    return stage_ct_zsr(paths, "msd-pancreas-zsr", **kw)


def stage_totalseg(paths: DatasetPaths, **kw: Any) -> dict[str, Any]:
    return stage_ct_zsr(paths, "totalseg-zsr", **kw)


def stage_synthrad2025(paths: DatasetPaths, source: str | Path | None = None, regions: str = "AB,HN,TH",
                       limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    if source is None:
        raise DatasetError(f"synthrad2025: no source given.\n{HOW_TO_GET.format(what='SynthRAD2025')}")
    src = Path(source).expanduser()
    task = src / "Task1" if (src / "Task1").is_dir() else src
    patients = sorted(p for r in regions.split(",") for p in (task / r.strip()).glob("*") if p.is_dir())
    if not patients:
        raise DatasetError(f"synthrad2025: no <region>/<patient>/ folders under {task}.\n"
                           f"{HOW_TO_GET.format(what='SynthRAD2025')}")
    if limit:
        patients = patients[: int(limit)]
    cases, skipped = [], {}
    for i, p in enumerate(patients):
        cid = p.name
        try:
            mr, aff = read_mha(p / "mr.mha")
            ct, ct_aff = read_mha(p / "ct.mha")
            mask, _ = read_mha(p / "mask.mha") if (p / "mask.mha").is_file() else (np.ones(ct.shape, np.uint8), None)
            if mr.shape != ct.shape or mask.shape != ct.shape:
                raise ValueError(f"shapes differ: mr {mr.shape}, ct {ct.shape}, mask {mask.shape}")
            ref = ct.astype(np.float32)
            save_nifti_gz(make_nifti(mr.astype(np.float32), aff), paths.public / cid / "mr.nii.gz")
            save_nifti_gz(make_nifti((mask > 0).astype(np.uint8), aff), paths.public / cid / "mask.nii.gz")
            save_nifti_gz(make_nifti(ref, ct_aff), paths.private / cid / "reference.nii.gz")
            (paths.public / cid / "target_grid.json").write_text(json.dumps(
                {"shape": list(ref.shape), "affine": np.round(ct_aff, 6).tolist()}, indent=2) + "\n")
            r64 = np.clip(ref.astype(np.float64), *SYNTHRAD_CLIP)
            bulk = np.where(mask > 0, 0.0, -1000.0)
            base = ssim(r64, np.clip(bulk, *SYNTHRAD_CLIP), reference_data_range(r64))
        except Exception as exc:
            skipped[cid] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
            continue
        cases.append({"case_id": cid, "variant": "mri_to_ct", "region": p.parent.name,
                      "shape": list(ref.shape), "baseline_ssim": round(float(base), 6)})
        if progress:
            progress(i + 1, len(patients), cid)
    if not cases:
        raise DatasetError(f"synthrad2025: no usable patient under {task} (skipped: {skipped})")
    return write_manifest(paths, dataset="synthrad2025", cases=cases,
                          description="SynthRAD2025 Task 1 MRI->CT, staged locally",
                          provenance={"source": str(src), "regions": regions, "skipped": skipped,
                                      "baseline": "bulk density (-1000 HU outside mask, 0 HU inside)",
                                      "ssim_clip": list(SYNTHRAD_CLIP)})
