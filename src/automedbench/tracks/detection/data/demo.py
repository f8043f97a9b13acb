"""Embedded demo detection dataset `xray-markers`: real radiographs, simulated radiopaque markers.

Source images (real patients' anonymised radiographs that ship in the `pydicom-data` package):
  RG1_UNCR.dcm  computed radiography, PA chest (1955×1841, MONOCHROME1)
  RG3_UNCR.dcm  computed radiography, lower leg / ankle (1760×1760, MONOCHROME1)
Each case is a 256×256 tile of one of them, after seeded, documented transforms:
  - down-sampling by 3 (area averaging), a random crop (leg crops avoid the burnt-in "R"
    side marker, which is a real unannotated marker), random horizontal flip, a gamma of
    0.8-1.25 and a contrast scale of 0.7-0.85 (radiopaque markers stay the brightest);
  - 1-3 simulated radiopaque markers on two thirds of the cases (the rest are negative):
    class `marker` — a solid disc (radius 4-9 px), or class `ring` — an annulus (outer
    radius 7-14 px, wall 2-3 px); drawn anti-aliased, partly transparent (opacity 0.55-0.9),
    never overlapping each other, placed where the
    local background is below 0.7 (a marker on white soft tissue would be invisible);
  - slight blur (sigma 0.6) and Gaussian noise (sd 0.01), then 8-bit PNG.
The ground-truth box of a marker is its exact extent: (cx - r, cy - r, cx + r, cy + r) in pixel
corner coordinates (pixel (i, j) covers [j, j+1) × [i, i+1)).

Honest naming: the anatomy is real, the findings are simulated. Note that the chest
radiograph contains real round opacities; markers are used (not simulated nodules) so that no
real, unannotated lesion contradicts the ground truth. Same seed → byte-identical files.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ....data import DatasetPaths, write_manifest
from ....data.pydicom_files import read_dicom_gray

DATASET = "xray-markers"
GENERATOR_VERSION = 1
TILE = 256
CLASSES = ("marker", "ring")
SOURCES = {"chest": "RG1_UNCR.dcm", "leg": "RG3_UNCR.dcm"}
# the burnt-in "R" side marker of RG3, in down-sampled (÷3) pixels: (row0, row1, col0, col1)
_LEG_EXCLUDE = (440, 520, 365, 420)
Progress = Callable[[int, int, str], None]


@lru_cache(maxsize=1)
def _sources() -> dict[str, np.ndarray]:
    out = {}
    for key, name in SOURCES.items():
        img, _ = read_dicom_gray(name)
        h, w = (img.shape[0] // 3) * 3, (img.shape[1] // 3) * 3
        out[key] = img[:h, :w].reshape(h // 3, 3, w // 3, 3).mean(axis=(1, 3)).astype(np.float32)
    return out


def _crop(rng: np.random.Generator, key: str, img: np.ndarray) -> tuple[np.ndarray, list[int]]:
    for _ in range(200):
        r = int(rng.integers(0, img.shape[0] - TILE + 1))
        c = int(rng.integers(0, img.shape[1] - TILE + 1))
        tile = img[r:r + TILE, c:c + TILE]
        if key == "leg":
            r0, r1, c0, c1 = _LEG_EXCLUDE
            if r < r1 and r + TILE > r0 and c < c1 and c + TILE > c0:
                continue
        if float(np.mean(tile > 0.15)) > 0.6:     # mostly anatomy, not collimator background
            return tile.copy(), [r, c]
    raise RuntimeError("no usable crop found")        # cannot happen with these sources


def _draw(rng: np.random.Generator, img: np.ndarray, n: int) -> list[dict[str, Any]]:
    yy, xx = np.mgrid[0:TILE, 0:TILE].astype(np.float32) + 0.5      # pixel centres
    boxes: list[dict[str, Any]] = []
    placed: list[tuple[float, float, float]] = []
    for _ in range(2000):
        if len(boxes) == n:
            break
        cls = CLASSES[int(rng.integers(2))]
        r = float(rng.integers(4, 10)) if cls == "marker" else float(rng.integers(7, 15))
        cx, cy = (float(v) + 0.5 * float(rng.integers(0, 2)) for v in rng.integers(int(r) + 2, TILE - int(r) - 2, 2))
        if any((cx - px) ** 2 + (cy - py) ** 2 < (r + pr + 6) ** 2 for px, py, pr in placed):
            continue
        dist = np.hypot(xx - cx, yy - cy)
        if float(img[dist < r + 3].mean()) > 0.7:     # keep a visible contrast: not on white
            continue
        cover = np.clip(r - dist + 0.5, 0, 1)
        if cls == "ring":
            wall = float(rng.integers(2, 4))
            cover = cover * np.clip(dist - (r - wall) + 0.5, 0, 1)
        alpha = float(rng.uniform(0.55, 0.9)) * cover
        img *= 1 - alpha
        img += alpha * 1.0
        placed.append((cx, cy, r))
        boxes.append({"class": cls, "x1": cx - r, "y1": cy - r, "x2": cx + r, "y2": cy + r})
    if len(boxes) != n:
        raise RuntimeError("could not place the markers")   # cannot happen with these sources
    return boxes


def build_xray_markers(paths: DatasetPaths, n_cases: int = 24, seed: int = 0, *,
                       progress: Progress | None = None) -> dict[str, Any]:
    """Write `n_cases` cases (a third negative) and manifest.json; see the module docstring."""
    from PIL import Image
    from scipy import ndimage
    if n_cases < 3:
        raise ValueError("n_cases must be at least 3 (positive and negative cases)")
    src = _sources()
    negatives = set(np.random.default_rng([seed, 1]).choice(n_cases, n_cases // 3, replace=False).tolist())
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        rng = np.random.default_rng([seed, 2, i])
        key = ("chest", "leg")[i % 2]
        tile, origin = _crop(rng, key, src[key])
        flip = bool(rng.integers(2))
        if flip:
            tile = tile[:, ::-1].copy()
        gamma, contrast = float(rng.uniform(0.8, 1.25)), float(rng.uniform(0.7, 0.85))
        tile = (tile ** gamma) * contrast
        n = 0 if i in negatives else int(rng.integers(1, 4))
        boxes = _draw(rng, tile, n)
        tile = ndimage.gaussian_filter(tile, 0.6) + rng.normal(0, 0.01, tile.shape).astype(np.float32)
        pixels = np.clip(np.round(tile * 255), 0, 255).astype(np.uint8)
        (paths.public / cid).mkdir(parents=True, exist_ok=True)
        (paths.private / cid).mkdir(parents=True, exist_ok=True)
        Image.fromarray(pixels).save(paths.public / cid / "image.png", optimize=False)
        ref = {"width": TILE, "height": TILE, "boxes": boxes}
        (paths.private / cid / "boxes.json").write_text(json.dumps(ref, indent=1) + "\n")
        cases.append({"case_id": cid, "width": TILE, "height": TILE, "positive": bool(boxes),
                      "n_boxes": len(boxes), "boxes": boxes,
                      "simulation": {"source": SOURCES[key], "crop_origin_rc_div3": origin,
                                     "flip_lr": flip, "gamma": round(gamma, 4),
                                     "contrast": round(contrast, 4)}})
        if progress:
            progress(i + 1, n_cases, cid)
    provenance = {
        "source": ("pydicom-data (MIT): RG1_UNCR.dcm PA chest CR and RG3_UNCR.dcm lower-leg CR, "
                   "real anonymised radiographs"),
        "real": "anatomy (radiograph tiles)",
        "simulated": ["crop/flip/gamma/contrast", "radiopaque disc markers (class marker)",
                      "radiopaque ring markers (class ring)", "blur + Gaussian noise"],
        "builder": f"automedbench.tracks.detection.data.demo.build_xray_markers v{GENERATOR_VERSION}",
        "seed": seed, "n_cases": n_cases, "classes": list(CLASSES),
        "inputs": ["image.png"], "references": ["boxes.json"],
    }
    return write_manifest(paths, dataset=DATASET, cases=cases, provenance=provenance,
                          description=("Radiopaque marker detection on 256x256 radiograph tiles: "
                                       "real chest/leg radiographs (pydicom-data), simulated "
                                       "markers with known boxes; a third of the cases negative."))
