"""Real DICOM images that ship inside PyPI packages (`pydicom`'s test files and the
`pydicom-data` package, MIT licensed), found and read offline.

pydicom's own `get_testdata_file` may try to download a file it does not find; this module
never touches the network: it looks in the installed `pydicom-data` package (`data_store`)
and in pydicom's bundled test files, and says how to install them when a file is absent.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from . import DatasetError


def find_dicom(name: str) -> Path:
    """Path of a DICOM file shipped in pydicom-data or pydicom (offline)."""
    roots = []
    try:
        import data_store  # the import name of the pydicom-data package
        roots.append(Path(data_store.__file__).parent / "data")
    except ImportError:
        pass
    try:
        import pydicom
        roots.append(Path(pydicom.__file__).parent / "data" / "test_files")
    except ImportError:
        pass
    for root in roots:
        hits = sorted(root.rglob(name)) if root.is_dir() else []
        if hits:
            return hits[0]
    raise DatasetError(f"{name}: not found in the installed pydicom / pydicom-data packages; "
                       "install them with `pip install pydicom pydicom-data`")


def read_dicom_gray(name: str, frame: int = 0) -> tuple[np.ndarray, dict[str, str]]:
    """(image as float32 in [0, 1], bright = dense/high signal; DICOM header facts).

    MONOCHROME1 is inverted so that every image has the same display convention; the
    intensity window is the 0.5-99.5th percentile. Colour images are converted to luminance."""
    import pydicom

    ds = pydicom.dcmread(str(find_dicom(name)))
    arr = np.asarray(ds.pixel_array, dtype=np.float32)
    if int(getattr(ds, "NumberOfFrames", 1) or 1) > 1:
        arr = arr[frame]
    photometric = str(getattr(ds, "PhotometricInterpretation", ""))
    if arr.ndim == 3:   # colour (RGB after pydicom's conversion): ITU-R 601 luminance
        if photometric.startswith("YBR"):
            from pydicom.pixels import convert_color_space
            arr = convert_color_space(arr, photometric, "RGB").astype(np.float32)
        arr = arr[..., :3] @ np.array([0.299, 0.587, 0.114], np.float32)
    if photometric == "MONOCHROME1":
        arr = arr.max() - arr
    lo, hi = np.percentile(arr, [0.5, 99.5])
    arr = np.clip((arr - lo) / max(float(hi - lo), 1e-6), 0.0, 1.0).astype(np.float32)
    facts = {"file": name, "modality": str(getattr(ds, "Modality", "")),
             "body_part": str(getattr(ds, "BodyPartExamined", "")),
             "photometric": photometric, "rows": str(getattr(ds, "Rows", "")),
             "columns": str(getattr(ds, "Columns", ""))}
    return arr, facts


def read_dicom_rgb(name: str, frame: int = 0) -> tuple[np.ndarray, dict[str, str]]:
    """(image as float32 RGB (H, W, 3) in [0, 1]; header facts). Palette-colour and YBR images
    are converted to RGB; grayscale images are windowed as in `read_dicom_gray` and repeated
    in the three channels."""
    import pydicom
    from pydicom.pixels import apply_color_lut, convert_color_space

    ds = pydicom.dcmread(str(find_dicom(name)))
    photometric = str(getattr(ds, "PhotometricInterpretation", ""))
    if photometric not in ("PALETTE COLOR", "RGB") and not photometric.startswith("YBR"):
        gray, facts = read_dicom_gray(name, frame)
        return np.repeat(gray[..., None], 3, axis=2), facts
    arr = ds.pixel_array
    if int(getattr(ds, "NumberOfFrames", 1) or 1) > 1:
        arr = arr[frame]
    if photometric == "PALETTE COLOR":
        arr = apply_color_lut(arr, ds)
    elif photometric.startswith("YBR"):
        arr = convert_color_space(arr, photometric, "RGB")
    arr = np.asarray(arr, dtype=np.float32)
    top = float(2 ** int(getattr(ds, "BitsStored", 8)) - 1) if photometric != "PALETTE COLOR" else float(arr.max())
    arr = np.clip(arr / max(top, 1.0), 0.0, 1.0)
    facts = {"file": name, "modality": str(getattr(ds, "Modality", "")),
             "body_part": str(getattr(ds, "BodyPartExamined", "")), "photometric": photometric,
             "rows": str(getattr(ds, "Rows", "")), "columns": str(getattr(ds, "Columns", ""))}
    return arr[..., :3], facts
