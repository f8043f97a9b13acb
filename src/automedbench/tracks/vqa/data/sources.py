"""Real medical images shipped inside PyPI packages, with what is KNOWN about each from its
provenance (modality from the DICOM header, body region from the header or the file's
documented content, acquisition plane where the geometry fixes it).

  package            file                                modality           region       plane
  nilearn            MNI ICBM152 2009 T1 template        MRI                head         any (sliced)
  pydicom-data       693_UNCI.dcm (CT, head)             CT                 head         axial
  pydicom            CT_small.dcm (CT)                   CT                 -            axial
  pydicom-data       MR-SIEMENS-DICOM-WithOverlays.dcm   MRI                abdomen      axial
  pydicom-data       MR2_UNCI.dcm (StudyDescription SHOULDER) MRI           shoulder     -
  pydicom-data       RG1_UNCI.dcm (CR, BodyPart CHEST)   X-ray              chest        -
  pydicom-data       RG3_UNCI.dcm (CR, EXTREMITY)        X-ray              extremity    -
  pydicom-data       JPEG2000_UNC.dcm (NM, WHOLE BODY)   nuclear medicine   whole body   -
  pydicom-data       US1_UNCI.dcm (US, colour Doppler)   ultrasound         -            -
  pydicom-data       OBXXXX1A.dcm (US, palette)          ultrasound         -            -
  scikit-image       retina.jpg (fundus photograph)      fundus photography eye          -
  scikit-image       ihc.png (immunohistochemistry)      microscopy         -            -

Each loader returns float images in [0, 1] (grey) or uint8 RGB, down-sized to <= 320 px.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ....data.pydicom_files import find_dicom

MAX_SIDE = 320


@dataclass(frozen=True)
class Source:
    name: str
    provenance: str
    modality: str
    region: str | None = None
    plane: str | None = None
    # grey: float32 [0,1] (H, W); colour: uint8 (H, W, 3)
    image: Any = None
    # where simulated lesions may be inserted (bool mask, same H, W), or None = no lesions
    lesion_mask: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def _shrink(arr: np.ndarray, max_side: int = MAX_SIDE) -> np.ndarray:
    from PIL import Image
    h, w = arr.shape[:2]
    scale = max_side / max(h, w)
    if scale >= 1:
        return arr
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    if arr.dtype == np.uint8:
        return np.asarray(Image.fromarray(arr).resize(size, Image.Resampling.LANCZOS))
    return np.asarray(Image.fromarray(arr.astype(np.float32), mode="F").resize(size, Image.Resampling.BILINEAR))


def _window(arr: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return np.clip((arr.astype(np.float32) - lo) / max(hi - lo, 1e-6), 0, 1)


def _percentile_scale(arr: np.ndarray, p: float = 99.5) -> np.ndarray:
    arr = arr.astype(np.float32)
    lo, hi = float(arr.min()), float(np.percentile(arr, p))
    return _window(arr, lo, hi)


def _dicom(name: str, invert_monochrome1: bool = True) -> tuple[np.ndarray, Any]:
    import pydicom
    from pydicom.pixels import apply_color_lut, apply_modality_lut

    ds = pydicom.dcmread(find_dicom(name))
    arr = ds.pixel_array
    if ds.get("PhotometricInterpretation") == "PALETTE COLOR":
        arr = apply_color_lut(arr, ds)
        if arr.dtype != np.uint8:
            arr = (arr / max(float(arr.max()), 1) * 255).astype(np.uint8)
        return arr, ds
    if arr.ndim == 3 and arr.shape[-1] == 3:
        return arr.astype(np.uint8), ds
    arr = apply_modality_lut(arr, ds).astype(np.float32)
    if invert_monochrome1 and ds.get("PhotometricInterpretation") == "MONOCHROME1":
        arr = arr.max() - arr                     # MONOCHROME1: high values are dark
    return arr, ds


def _brain_region(img01: np.ndarray, lo: float, hi: float) -> np.ndarray:
    from scipy import ndimage

    mask = (img01 > lo) & (img01 < hi)
    mask = ndimage.binary_opening(mask, iterations=2)
    lab, n = ndimage.label(mask)
    if n == 0:
        return mask
    biggest = 1 + int(np.argmax(ndimage.sum(mask, lab, range(1, n + 1))))
    return ndimage.binary_erosion(ndimage.binary_fill_holes(lab == biggest), iterations=4)


@lru_cache(maxsize=1)
def still_sources() -> tuple[Source, ...]:
    """Every fixed source image (the MNI volume is sliced per question, see mni_slice)."""
    out = []
    ct, _ = _dicom("693_UNCI.dcm")
    ct01 = _shrink(_window(ct, -20, 120) * 0.6 + _window(ct, 120, 1500) * 0.4)
    out.append(Source("ct_head", "pydicom-data 693_UNCI.dcm (CT, axial head)", "ct", "head", "axial",
                      ct01, _brain_region(ct01, 0.05, 0.55)))
    small, _ = _dicom("CT_small.dcm")
    out.append(Source("ct_small", "pydicom CT_small.dcm (CT, axial)", "ct", None, "axial",
                      _shrink(_window(small, -160, 240))))
    abd, _ = _dicom("MR-SIEMENS-DICOM-WithOverlays.dcm")
    out.append(Source("mr_abdomen", "pydicom-data MR-SIEMENS-DICOM-WithOverlays.dcm (MR, abdomen)",
                      "mri", "abdomen", "axial", _shrink(_percentile_scale(abd))))
    sh, _ = _dicom("MR2_UNCI.dcm")
    out.append(Source("mr_shoulder", "pydicom-data MR2_UNCI.dcm (MR, shoulder)", "mri", "shoulder", None,
                      _shrink(_percentile_scale(sh))))
    # RG1's stored values already display as a normal radiograph (dark lungs) despite its
    # MONOCHROME1 tag (checked visually); RG3 needs the MONOCHROME1 inversion.
    cxr, _ = _dicom("RG1_UNCI.dcm", invert_monochrome1=False)
    out.append(Source("xray_chest", "pydicom-data RG1_UNCI.dcm (CR, chest)", "xray", "chest", None,
                      _shrink(_percentile_scale(cxr, 99.8))))
    leg, _ = _dicom("RG3_UNCI.dcm")
    out.append(Source("xray_extremity", "pydicom-data RG3_UNCI.dcm (CR, extremity)", "xray", "extremity",
                      None, _shrink(_percentile_scale(leg, 99.8))))
    nm, _ = _dicom("JPEG2000_UNC.dcm")
    out.append(Source("nm_whole_body", "pydicom-data JPEG2000_UNC.dcm (NM, whole-body bone scan)",
                      "nuclear medicine", "whole body", None, _shrink(_percentile_scale(nm, 99.0))))
    us, _ = _dicom("US1_UNCI.dcm")
    out.append(Source("us_doppler", "pydicom-data US1_UNCI.dcm (US, colour Doppler)", "ultrasound",
                      image=_shrink(us)))
    ob, _ = _dicom("OBXXXX1A.dcm")
    out.append(Source("us_obstetric", "pydicom-data OBXXXX1A.dcm (US, palette colour)", "ultrasound",
                      image=_shrink(ob)))
    from skimage import data as skdata

    out.append(Source("fundus", "scikit-image data.retina() (colour fundus photograph)",
                      "fundus photography", "eye", image=_shrink(np.asarray(skdata.retina(), dtype=np.uint8))))
    out.append(Source("ihc", "scikit-image data.immunohistochemistry() (IHC micrograph)", "microscopy",
                      image=_shrink(np.asarray(skdata.immunohistochemistry(), dtype=np.uint8))))
    return tuple(out)


@lru_cache(maxsize=1)
def _mni() -> tuple[np.ndarray, np.ndarray]:
    from nilearn import datasets  # lazily: the import is slow

    t1 = datasets.load_mni152_template(resolution=2).get_fdata(dtype=np.float32)
    brain = datasets.load_mni152_brain_mask(resolution=2).get_fdata(dtype=np.float32) > 0.5
    return t1 / max(float(t1.max()), 1e-6), brain


def mni_slice(plane: str, position: float) -> Source:
    """One slice of the MNI152 T1 template in radiological display (anterior / superior up),
    at `position` (0..1) along the brain's extent on that axis, up-sampled x2."""
    from scipy import ndimage

    t1, brain = _mni()
    axis = {"sagittal": 0, "coronal": 1, "axial": 2}[plane]
    extent = np.flatnonzero(brain.any(axis=tuple(a for a in range(3) if a != axis)))
    k = round(float(extent[0] + position * (extent[-1] - extent[0])))
    img = np.take(t1, k, axis=axis)
    mask = np.take(brain, k, axis=axis)
    img, mask = np.rot90(img), np.rot90(mask)
    img = ndimage.zoom(img, 2, order=1)
    mask = ndimage.zoom(mask.astype(np.float32), 2, order=1) > 0.5
    img = _percentile_scale(img * mask + img * (~mask) * 0.3, 99.8)
    return Source(f"mni_{plane}", f"nilearn MNI152 T1 template, {plane} slice {k} (2 mm grid, x2)",
                  "mri", "head", plane, img, ndimage.binary_erosion(mask, iterations=6),
                  extra={"slice_index": k})
