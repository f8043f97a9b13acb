"""Stager for the official KiTS19 kidney-tumour CT dataset (never redistributed).

Source layout (a clone of https://github.com/neheller/kits19 after its
``python -m starter_code.get_imaging``)::

    kits19/data/case_00000/imaging.nii.gz        CT volume
    kits19/data/case_00000/segmentation.nii.gz   0 background, 1 kidney, 2 tumour
    ...
    kits19/data/case_00209/...                   cases 210-299 are the challenge test set
                                                 and have no public segmentation

``source`` may point at the repository root (``kits19``) or at its ``data`` folder.

Staged layout (docs/data.md#the-data-contract), for the binary organ + lesion segmentation track::

    public/case_XXXXX/image.nii.gz      the imaging file, hard-linked (or copied) unchanged
    private/case_XXXXX/organ.nii.gz     uint8, segmentation in {1, 2}  (kidney incl. tumour)
    private/case_XXXXX/lesion.nii.gz    uint8, segmentation == 2       (tumour)

The references keep the segmentation's affine and header.  A case that lacks a file, whose
files cannot be read, or whose shapes disagree is skipped with the reason recorded in the
manifest's ``provenance.skipped``; staging only fails when no case is usable.

Downloading is opt-in (``download=True``) and never used by the tests: the imaging comes
from the challenge's public bucket and the segmentation from the GitHub repository, the
same places the official starter code uses.
"""
from __future__ import annotations

import os
import re
import shutil
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterable, cast

import numpy as np

from ....data import DatasetError, DatasetPaths, link_or_copy, write_manifest
from ...nifti_io import make_nifti, save_nifti_gz

DATASET = "kits19"
N_LABELLED = 210                      # case_00000 .. case_00209 have segmentations
IMAGING_URL = "https://kits19.sfo2.digitaloceanspaces.com/master_{cid:05d}.nii.gz"
SEGMENTATION_URL = ("https://raw.githubusercontent.com/neheller/kits19/master/data/"
                    "case_{cid:05d}/segmentation.nii.gz")
LABELS = {"0": "background", "1": "kidney", "2": "tumour"}

Progress = Callable[[int, int, str], None]
_CASE_RE = re.compile(r"^case_(\d{5})$")

HOW_TO_GET = (
    "KiTS19 is not redistributed by AutoMedBench. Get it from the official source:\n"
    "  git clone https://github.com/neheller/kits19 && cd kits19 && "
    "pip install -r requirements.txt && python -m starter_code.get_imaging\n"
    "then stage it with source=<path to kits19> (CLI: --source PATH), or pass "
    "download=True to let the stager fetch the cases itself (about 30 GB for all 210).")


def case_id(index: int) -> str:
    return f"case_{index:05d}"


def _case_index(case: int | str) -> int:
    if isinstance(case, (int, np.integer)):
        return int(case)
    m = _CASE_RE.match(str(case))
    if m:
        return int(m.group(1))
    if str(case).isdigit():
        return int(str(case))
    raise DatasetError(f"kits19: not a case id: {case!r} (expected e.g. 12 or 'case_00012')")


def find_data_dir(source: Path | str) -> Path:
    """The folder that holds the ``case_XXXXX`` directories (repo root or its data/)."""
    src = Path(source).expanduser()
    if not src.is_dir():
        raise DatasetError(f"kits19: source directory {src} does not exist.\n{HOW_TO_GET}")
    for cand in (src / "data", src):
        if cand.is_dir() and any(_CASE_RE.match(p.name) for p in cand.iterdir() if p.is_dir()):
            return cand
    raise DatasetError(f"kits19: no case_XXXXX folders under {src} or {src / 'data'}; "
                       f"expected the official layout kits19/data/case_00000/imaging.nii.gz.\n"
                       f"{HOW_TO_GET}")


# --------------------------------------------------------------------------------------
# Optional download (explicit opt-in only)
# --------------------------------------------------------------------------------------
def _fetch(url: str, dest: Path, timeout: float) -> None:
    if dest.is_file() and dest.stat().st_size > 0:
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(part, "wb") as fh:
            shutil.copyfileobj(resp, fh, length=1 << 20)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise DatasetError(f"kits19: download of {url} failed: {exc}") from None
    with open(part, "rb") as fh:
        magic = fh.read(2)
    if magic != b"\x1f\x8b":                # e.g. a Git LFS pointer or an HTML error page
        part.unlink(missing_ok=True)
        raise DatasetError(f"kits19: {url} did not return a gzip file; fetch it with the "
                           f"official starter code instead.\n{HOW_TO_GET}")
    os.replace(part, dest)


def download_kits19(dest: Path | str, cases: Iterable[int | str] | None = None, *,
                    timeout: float = 120.0, progress: Progress | None = None) -> Path:
    """Download cases (default: all 210 labelled ones) into ``dest/data/case_XXXXX/``.

    Imaging from the official public bucket (:data:`IMAGING_URL`), segmentation from the
    official GitHub repository (:data:`SEGMENTATION_URL`).  Files already present are kept.
    Returns the data folder.  Network use happens only here, and only when called.
    """
    indices = [_case_index(c) for c in cases] if cases is not None else list(range(N_LABELLED))
    data = Path(dest).expanduser() / "data"
    for n, i in enumerate(indices, start=1):
        cdir = data / case_id(i)
        _fetch(IMAGING_URL.format(cid=i), cdir / "imaging.nii.gz", timeout)
        if i < N_LABELLED:
            _fetch(SEGMENTATION_URL.format(cid=i), cdir / "segmentation.nii.gz", timeout)
        if progress:
            progress(n, len(indices), case_id(i))
    return data


# --------------------------------------------------------------------------------------
# Staging
# --------------------------------------------------------------------------------------
def _stage_case(data_dir: Path, idx: int, paths: DatasetPaths, link: bool
                ) -> tuple[dict[str, Any] | None, str | None]:
    """Stage one case; returns (manifest entry, None) or (None, reason it was skipped)."""
    import nibabel as nib

    cid = case_id(idx)
    cdir = data_dir / cid
    if idx >= N_LABELLED:
        return None, "no public segmentation (KiTS19 test-set case)"
    if not cdir.is_dir():
        return None, f"case folder {cdir} missing"
    img_f, seg_f = cdir / "imaging.nii.gz", cdir / "segmentation.nii.gz"
    for f in (img_f, seg_f):
        if not f.is_file():
            return None, f"missing {f.name}"
    try:
        img = cast(nib.Nifti1Image, nib.load(str(img_f)))
        seg_img = cast(nib.Nifti1Image, nib.load(str(seg_f)))
        seg = np.asanyarray(seg_img.dataobj)
    except Exception as exc:  # nibabel raises several types for corrupt files
        return None, f"unreadable NIfTI: {type(exc).__name__}: {exc}"
    if tuple(img.shape) != tuple(seg.shape):
        return None, f"shape mismatch: imaging {tuple(img.shape)} vs segmentation {tuple(seg.shape)}"
    seg = np.rint(seg).astype(np.int64) if seg.dtype.kind == "f" else seg.astype(np.int64)
    values = set(np.unique(seg).tolist())
    if not values <= {0, 1, 2}:
        return None, f"unexpected segmentation labels {sorted(values - {0, 1, 2})}"
    organ = np.isin(seg, (1, 2)).astype(np.uint8)
    lesion = (seg == 2).astype(np.uint8)
    how = link_or_copy(img_f, paths.public / cid / "image.nii.gz", link)
    for name, arr in (("organ", organ), ("lesion", lesion)):
        out = make_nifti(arr, seg_img.affine, header=seg_img.header)
        save_nifti_gz(out, paths.private / cid / f"{name}.nii.gz")
    return {"case_id": cid, "lesion_positive": bool(lesion.any()),
            "organ_voxels": int(organ.sum()), "lesion_voxels": int(lesion.sum()),
            "shape": [int(s) for s in seg.shape], "image": how}, None


def stage_kits19(paths: DatasetPaths, source: Path | str | None = None, *,
                 cases: Iterable[int | str] | None = None, limit: int | None = None,
                 download: bool = False, download_dir: Path | str | None = None,
                 link: bool = True, progress: Progress | None = None) -> dict[str, Any]:
    """Stage KiTS19 from a local official copy into ``paths``; returns the manifest.

    cases     subset (ints or 'case_00012'); default: every case folder in the source.
    limit     stage at most this many usable cases (after ``cases``), in id order.
    download  only when no ``source`` is given: fetch the requested cases first into
              ``download_dir`` (default ``<data_root>/_sources/kits19``).
    link      hard-link the imaging into public/ when possible (else copy).
    """
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise DatasetError(f"kits19: limit must be a positive integer, got {limit!r}")
    wanted = sorted({_case_index(c) for c in cases}) if cases is not None else None
    if source is None:
        if not download:
            raise DatasetError(f"kits19: no source given.\n{HOW_TO_GET}")
        dl = Path(download_dir) if download_dir else paths.root.parent / "_sources" / DATASET
        todo = wanted if wanted is not None else list(range(N_LABELLED))
        if limit is not None:
            todo = todo[:limit]
        data_dir = download_kits19(dl, todo)
    else:
        data_dir = find_data_dir(source)
    if wanted is None:
        wanted = sorted(int(m.group(1)) for p in data_dir.iterdir()
                        if p.is_dir() and (m := _CASE_RE.match(p.name)))
    paths.public.mkdir(parents=True, exist_ok=True)
    paths.private.mkdir(parents=True, exist_ok=True)
    staged: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    for n, idx in enumerate(wanted, start=1):
        if limit is not None and len(staged) >= limit:
            break
        entry, reason = _stage_case(data_dir, idx, paths, link)
        if entry is None:
            skipped.append({"case_id": case_id(idx), "reason": reason or "unknown"})
        else:
            staged.append(entry)
        if progress:
            progress(n, len(wanted), case_id(idx))
    if not staged:
        detail = "; ".join(f"{s['case_id']}: {s['reason']}" for s in skipped[:10])
        raise DatasetError(f"kits19: no usable case in {data_dir}"
                           + (f" ({detail})" if detail else ""))
    provenance = {
        "source": "KiTS19 challenge data (Heller et al. 2019), https://github.com/neheller/kits19",
        "licence": "CC BY-NC-SA 4.0 (see the official repository); not redistributed",
        "source_dir": str(data_dir.resolve()),
        "labels": dict(LABELS),
        "derivation": {"organ": "segmentation in {1, 2} (kidney including tumour)",
                       "lesion": "segmentation == 2 (tumour)",
                       "image": "imaging.nii.gz unchanged"},
        "inputs": ["image.nii.gz"], "references": ["organ.nii.gz", "lesion.nii.gz"],
        "options": {"cases": wanted if cases is not None else None, "limit": limit},
        "skipped": skipped,
    }
    return write_manifest(
        paths, dataset=DATASET,
        description="KiTS19 contrast-enhanced abdominal CT: kidney (organ) + kidney tumour "
                    "(lesion) segmentation, staged from the official release.",
        cases=staged, provenance=provenance)
