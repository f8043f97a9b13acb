"""Embedded demo classification dataset `modality-patches`: real image patches, real labels.

Task: name the imaging modality / specimen type of a 64×64 RGB patch. Five balanced classes,
20 cases each by default (100 cases), every patch cut from a real image that ships in a PyPI
package; the label is the source image's real modality (its DICOM Modality tag, or the
documented specimen type):
  ct          693_UNCR.dcm (head CT), CT_small.dcm (spine CT)           pydicom-data / pydicom
  mr          MR2_UNCR.dcm (shoulder MR), MR-SIEMENS-DICOM-WithOverlays.dcm (abdominal MR)
  xray        RG1_UNCR.dcm (chest CR), RG3_UNCR.dcm (leg CR)
  ultrasound  US1_UNCR.dcm (lymph-node US with colour Doppler), gdcm-US-ALOKA-16.dcm (pelvis US)
  histology   scikit-image `data.immunohistochemistry()` (IHC-stained colon tissue)
Seeded transforms per patch: a random square crop (a fraction of the image, inside a
per-source region that leaves out burnt-in text), kept only if it shows content (mean > 0.08,
sd > 0.03), area-resized to 64×64, random flip and 90° rotation, saved as 8-bit RGB PNG
(grayscale sources repeated in the three channels so the file format reveals nothing).

`public/_examples/` holds 8 labelled example patches per class (`labels.csv`: file,label),
cut from the same source images by a separate seed stream. They are part of the public
task data (the prompt says so); the cases' labels are only in private/. Same seed → identical files.
"""
from __future__ import annotations

import csv
import io
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ....data import DatasetPaths, write_manifest
from ....data.pydicom_files import read_dicom_rgb

DATASET = "modality-patches"
GENERATOR_VERSION = 1
PATCH = 64
N_EXAMPLES = 8
LABELS = ("ct", "mr", "xray", "ultrasound", "histology")
# label -> [(source, ROI as fractions (top, bottom, left, right),
#            crop size as a fraction of the ROI's short side)]
SOURCES: dict[str, list[tuple[str, tuple[float, float, float, float], tuple[float, float]]]] = {
    "ct": [("693_UNCR.dcm", (0.1, 0.9, 0.1, 0.9), (0.2, 0.4)),
           ("CT_small.dcm", (0.0, 1.0, 0.0, 1.0), (0.35, 0.6))],
    "mr": [("MR2_UNCR.dcm", (0.05, 0.95, 0.05, 0.95), (0.15, 0.3)),
           ("MR-SIEMENS-DICOM-WithOverlays.dcm", (0.15, 0.85, 0.1, 0.9), (0.2, 0.35))],
    "xray": [("RG1_UNCR.dcm", (0.05, 0.95, 0.05, 0.95), (0.1, 0.2)),
             ("RG3_UNCR.dcm", (0.0, 1.0, 0.25, 0.75), (0.2, 0.4))],
    "ultrasound": [("US1_UNCR.dcm", (0.25, 0.75, 0.2, 0.8), (0.25, 0.5)),
                   ("gdcm-US-ALOKA-16.dcm", (0.2, 0.8, 0.15, 0.85), (0.25, 0.5))],
    "histology": [("skimage:immunohistochemistry", (0.0, 1.0, 0.0, 1.0), (0.15, 0.35))],
}
Progress = Callable[[int, int, str], None]


@lru_cache(maxsize=None)
def _image(source: str) -> np.ndarray:
    if source.startswith("skimage:"):
        from skimage import data
        return getattr(data, source.split(":", 1)[1])().astype(np.float32) / 255.0
    return read_dicom_rgb(source)[0]


def _patch(rng: np.random.Generator, label: str) -> tuple[np.ndarray, dict[str, Any]]:
    from PIL import Image
    options = SOURCES[label]
    source, (t, b, left, right), (f0, f1) = options[int(rng.integers(len(options)))]
    img = _image(source)
    h, w = img.shape[:2]
    r0, r1, c0, c1 = int(t * h), int(b * h), int(left * w), int(right * w)
    for _ in range(500):
        size = max(16, int(min(r1 - r0, c1 - c0) * rng.uniform(f0, f1)))
        r = int(rng.integers(r0, r1 - size + 1))
        c = int(rng.integers(c0, c1 - size + 1))
        crop = img[r:r + size, c:c + size]
        if crop.mean() > 0.08 and crop.std() > 0.03:
            break
    pil = Image.fromarray(np.round(crop * 255).astype(np.uint8)).resize((PATCH, PATCH), Image.Resampling.BOX)
    arr = np.asarray(pil)
    k, flip = int(rng.integers(4)), bool(rng.integers(2))
    arr = np.rot90(arr, k)
    arr = arr[:, ::-1] if flip else arr
    return np.ascontiguousarray(arr), {"source": source, "crop_rc": [r, c], "crop_size": size,
                                       "rot90": k, "flip_lr": flip}


def _png(arr: np.ndarray) -> bytes:
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def build_modality_patches(paths: DatasetPaths, n_cases: int = 100, seed: int = 0, *,
                           progress: Progress | None = None) -> dict[str, Any]:
    """Write `n_cases` balanced cases, the labelled examples and manifest.json."""
    if n_cases < len(LABELS):
        raise ValueError(f"n_cases must be at least {len(LABELS)} (one per class)")
    labels = [LABELS[i % len(LABELS)] for i in range(n_cases)]
    order = np.random.default_rng([seed, 1]).permutation(n_cases)   # ids reveal nothing
    cases = []
    for i, j in enumerate(order):
        cid = f"pt_{i:03d}"
        label = labels[int(j)]
        arr, sim = _patch(np.random.default_rng([seed, 2, i]), label)
        (paths.public / cid).mkdir(parents=True, exist_ok=True)
        (paths.private / cid).mkdir(parents=True, exist_ok=True)
        (paths.public / cid / "image.png").write_bytes(_png(arr))
        (paths.private / cid / "label.txt").write_text(label + "\n")
        cases.append({"case_id": cid, "label": label, "simulation": sim})
        if progress:
            progress(i + 1, n_cases, cid)
    examples = paths.public / "_examples"
    examples.mkdir(parents=True, exist_ok=True)
    rows = []
    for label in LABELS:
        for k in range(N_EXAMPLES):
            arr, _ = _patch(np.random.default_rng([seed, 3, LABELS.index(label), k]), label)
            name = f"{label}_{k}.png"
            (examples / name).write_bytes(_png(arr))
            rows.append((name, label))
    with open(examples / "labels.csv", "w", newline="") as fh:
        csv.writer(fh).writerows([("file", "label"), *rows])
    provenance = {
        "source": {label: [s[0] for s in srcs] for label, srcs in SOURCES.items()},
        "packages": "pydicom-data (MIT), pydicom test files (MIT), scikit-image data (BSD)",
        "real": "pixels (patches of real images) and labels (the source's imaging modality)",
        "simulated": ["random crop / resize / flip / 90-degree rotation"],
        "builder": f"automedbench.tracks.classification.data.demo.build_modality_patches v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "labels": list(LABELS),
        "examples": f"public/_examples/ (labels.csv: file,label), {N_EXAMPLES} per class",
        "inputs": ["image.png"], "references": ["label.txt"],
    }
    return write_manifest(paths, dataset=DATASET, cases=cases, provenance=provenance,
                          description=("Imaging modality of 64x64 patches (ct, mr, xray, ultrasound, "
                                       "histology): real images from pydicom-data / scikit-image, "
                                       "real labels, balanced."))
