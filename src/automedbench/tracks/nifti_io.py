"""The one NIfTI I/O module shared by tracks (segmentation, synthesis): fast strict reading for
scoring, the shape/affine checks of a submission against the reference grid, byte-reproducible
writing for dataset builders.

Reading:

`read_nifti` decompresses a .nii.gz in one call (ISA-L when available, else zlib) and views the voxels in place
(no float64 conversion, one copy at most), which is what makes scoring cost about the same
as decompression. Anything odd (bad gzip, truncated data, a header that promises more
voxels than the file holds) raises `NiftiReadError` with a one-line reason.
"""
from __future__ import annotations

import gzip
import io
import os
import zlib
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import nibabel as nib

# nibabel is imported by the functions that read or write a header, not here: importing it
# (and pydicom, which it imports) takes seconds on a busy machine, and every track module and
# CLI command that only lists tasks imports this module (docs/testing.md "CLI start-up").

MAX_VOXELS = 2_000_000_000  # refuse absurd headers before allocating anything


class NiftiReadError(ValueError):
    pass


# ISA-L inflate when installed, else zlib. Measured (2026-11-26, shared 2-core machine, fastest
# of 7 passes) on bench/score_segmentation.py's masks, 32 uint8 512x512x96 .nii.gz, ~130 KB
# each (~190:1): ISA-L 1.17x faster than zlib serially (1.28x in a quieter earlier run), not the
# ~2.5x once claimed here; such masks inflate into long runs, where output writes dominate.
# A 16-copy synthetic box mask (gzip -6) gave 2.2x. Both release the GIL (2 threads: ~1.3-1.75x).
_igzip: ModuleType | None
try:
    from isal import igzip as _igzip
except ImportError:  # pragma: no cover - isal ships wheels for the usual platforms
    _igzip = None


def _decompress(raw: bytes) -> bytes:
    if _igzip is not None:
        try:
            return _igzip.decompress(raw)
        except EOFError:
            raise NiftiReadError("truncated gzip stream (file cut short)") from None
        except Exception as exc:  # isal raises IsalError / BadGzipFile for corrupt data
            raise NiftiReadError(f"not a valid gzip file: {exc}") from None
    try:
        # wbits=47: auto-detect gzip/zlib headers; handles one gzip member (what nibabel writes)
        d = zlib.decompressobj(47)
        data = d.decompress(raw)
        if not d.eof:
            raise NiftiReadError("truncated gzip stream (file cut short)")
        if d.unused_data:  # multi-member gzip: rare, let the stdlib handle it
            return gzip.decompress(raw)
        return data
    except zlib.error as exc:
        raise NiftiReadError(f"not a valid gzip file: {exc}") from None


def read_nifti(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(voxel array in its stored dtype — scaled to float32 only if the header says so, affine)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise NiftiReadError(f"cannot read file: {exc.strerror}") from None
    data = _decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    if len(data) < 348:
        raise NiftiReadError("file too short to hold a NIfTI header")
    import nibabel as nib

    try:
        header = nib.Nifti1Header.from_fileobj(io.BytesIO(data[:540]), check=True)
    except Exception as exc:  # nibabel raises several types for bad headers
        try:
            header = nib.Nifti2Header.from_fileobj(io.BytesIO(data[:540]), check=True)
        except Exception:
            raise NiftiReadError(f"not a NIfTI header: {exc}") from None
    shape = tuple(int(s) for s in header.get_data_shape())
    count = int(np.prod(shape, dtype=np.int64)) if shape else 0
    if count <= 0 or count > MAX_VOXELS:
        raise NiftiReadError(f"implausible image shape {shape}")
    dtype = header.get_data_dtype()
    offset = int(header.get_data_offset())
    need = offset + count * dtype.itemsize
    if len(data) < need:
        raise NiftiReadError(f"truncated voxel data: header promises {need} bytes, file holds {len(data)}")
    arr = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(shape, order="F")
    slope, inter = header.get_slope_inter()
    if slope is not None and (slope != 1 or (inter or 0) != 0):
        arr = arr.astype(np.float32) * np.float32(slope) + np.float32(inter or 0)
    return arr, header.get_best_affine()


# ---- checking a submission against the reference grid ------------------------------------


def match_shape(found: tuple[int, ...], expected: tuple[int, ...]) -> bool:
    """`found` is exactly `expected`, or `expected` followed by singleton axes: only TRAILING
    singleton axes are tolerated (docs/scoring.md#segmentation-rules); the voxels then reshape to `expected` as they are."""
    n = len(expected)
    return tuple(found[:n]) == tuple(expected) and all(s == 1 for s in found[n:])


def affine_max_diff(found: np.ndarray, expected: np.ndarray) -> float:
    """max |Δ| over the entries of two affines (float64; NaN if either holds a NaN)."""
    return float(np.max(np.abs(np.asarray(found, dtype=np.float64) - np.asarray(expected, dtype=np.float64))))


# ---- writing (dataset builders) -------------------------------------------------------
# nibabel's own .nii.gz writer goes through gzip, whose header records the file name and time;
# two builds with the same seed would then differ in sha256. We serialise with to_bytes() and
# gzip ourselves with mtime=0 and no file name, so the bytes depend only on data and header.


def make_nifti(data: np.ndarray, affine: np.ndarray, *, header: nib.Nifti1Header | None = None,
               xform_code: int = 1, descrip: str = "") -> nib.Nifti1Image:
    """A Nifti1Image with a fixed, fully specified header (no scaling, both xforms set)."""
    import nibabel as nib

    data = np.asarray(data)
    hdr = header.copy() if header is not None else nib.Nifti1Header()
    img = nib.Nifti1Image(data, np.asarray(affine, dtype=np.float64), header=hdr)
    img.set_data_dtype(data.dtype)
    img.header.set_slope_inter(np.nan, np.nan)  # stored values are the values: no scaling
    if header is None:
        img.set_qform(affine, code=xform_code)
        img.set_sform(affine, code=xform_code)
        img.header.set_xyzt_units("mm")
        img.header["descrip"] = descrip.encode()[:79]
    return img


def save_nifti_gz(img: nib.Nifti1Image, path: Path | str, *, compresslevel: int = 3) -> Path:
    """Write ``img`` to ``path`` (.nii.gz) deterministically; atomic via a temp file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = img.to_bytes()
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0,
                           compresslevel=compresslevel) as gz:
            gz.write(raw)
    os.replace(tmp, path)
    return path
