"""Byte-reproducible NIfTI writing shared by the dataset builders and stagers.

nibabel's own ``.nii.gz`` writer goes through :mod:`gzip`, whose header normally records
the file name and the time of writing; two builds with the same seed would then differ in
their sha256.  We serialise the image with ``to_bytes()`` and gzip it ourselves with
``mtime=0`` and no file name, so the bytes depend only on the data and the header.
"""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import nibabel as nib
import numpy as np


def make_nifti(data: np.ndarray, affine: np.ndarray, *, header: nib.Nifti1Header | None = None,
               xform_code: int = 1, descrip: str = "") -> nib.Nifti1Image:
    """A Nifti1Image with a fixed, fully specified header (no scaling, both xforms set)."""
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
