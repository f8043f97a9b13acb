"""Demo dataset `cxr-report-demo`: real radiographs, simulated findings, templated reports.

Real anatomy: the two computed radiographs that ship in the `pydicom-data` package — a PA chest
radiograph (RG1_UNCR.dcm) and an AP tibia/ankle radiograph whose own series description reads
"Non-ossifying fibroma of distal tibia" (RG3_UNCR.dcm). Their true clinical findings are not
otherwise known to us: the chest reports describe only the SIMULATED findings (the base image is
common to every chest study, so it carries no signal); the tibia reports state the fibroma,
as the source file's own description does.

Per study (seeded): a small shift/zoom, contrast (gamma) and noise change of the base image;
then simulated findings drawn into it:
  chest — pulmonary nodule (smooth disc, 8–24 mm, side × upper/lower zone), lower-zone
          consolidation (soft irregular opacity), pleural effusion (basal opacity with a
          meniscus, small/moderate); 0–2 findings, ~1/3 of studies normal;
  tibia — a nondisplaced transverse fracture line (proximal/mid shaft) in half of them.
Multi-view: about two thirds of studies also get a second image, a coned (cropped, magnified)
view of the lung bases / the distal tibia made from the same simulated exposure — a
simulated second view, NOT a true lateral projection.
The reference report (private/<id>/report.txt) is built from templates.yaml, sentence by
sentence from the simulated findings (normal and abnormal wordings, picked by the seed), with
FINDINGS and IMPRESSION sections. Same seed → identical files.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .... import yamlfile
from ....data import DatasetError, DatasetPaths, write_manifest
from ....data.pydicom_files import read_dicom_gray

SOURCES = {"chest": "RG1_UNCR.dcm", "tibia": "RG3_UNCR.dcm"}
WIDTH = 512
MM_PER_PX = 0.7          # nominal, at WIDTH px across (a ~36 cm chest): for nodule sizes only
INDICATIONS = {
    "chest": ["Cough.", "Shortness of breath.", "Fever.", "Pre-operative assessment.", "Chest pain."],
    "tibia": ["Pain after a fall.", "Ankle pain.", "Leg pain after sport."],
}
# lung geometry of the chest base image, as fractions of width/height (measured once on it)
LUNG_X = {"right": (0.14, 0.40), "left": (0.57, 0.88)}     # patient right = image left
ZONE_Y = {"upper": (0.18, 0.40), "lower": (0.48, 0.66)}
BASE_Y = {"right": 0.74, "left": 0.78}                     # hemidiaphragm tops
SHAFT_X, SHAFT_Y = (0.43, 0.55), {"proximal": (0.08, 0.22), "mid": (0.28, 0.42)}


@lru_cache(maxsize=2)
def base_image(kind: str) -> np.ndarray:
    """The real radiograph, inverted to MONOCHROME2 if needed, percentile-scaled to [0, 1],
    resized to WIDTH px across (float32)."""
    from PIL import Image
    arr, _ = read_dicom_gray(SOURCES[kind])
    h = round(arr.shape[0] * WIDTH / arr.shape[1])
    return np.asarray(Image.fromarray(arr).resize((WIDTH, h), Image.Resampling.BILINEAR), dtype=np.float32)


def _jitter(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    from scipy import ndimage
    zoom = rng.uniform(0.97, 1.03)
    shift = rng.uniform(-6, 6, size=2)
    h, w = img.shape
    centre = np.array([h / 2, w / 2])
    out = ndimage.affine_transform(img, np.eye(2) / zoom, offset=centre - centre / zoom - shift,
                                   order=1, mode="nearest")
    return np.clip(out, 0, 1) ** rng.uniform(0.9, 1.1)


def _disc(shape: tuple[int, ...], cy: float, cx: float, radius: float, edge: float = 1.5) -> np.ndarray:
    yy, xx = np.ogrid[:shape[0], :shape[1]]
    r = np.hypot(yy - cy, xx - cx)
    return 1.0 / (1.0 + np.exp((r - radius) / edge))


def _add_chest_finding(img: np.ndarray, f: dict[str, Any], rng: np.random.Generator) -> None:
    from scipy import ndimage, special
    h, w = img.shape
    x0, x1 = LUNG_X[f["side"]]
    if f["kind"] == "nodule":
        y0, y1 = ZONE_Y[f["zone"]]
        cy, cx = rng.uniform(y0 + 0.03, y1 - 0.03) * h, rng.uniform(x0 + 0.06, x1 - 0.06) * w
        img += 0.6 * _disc(img.shape, cy, cx, f["size"] / MM_PER_PX / 2) * (1 - img)
    elif f["kind"] == "consolidation":
        y0, y1 = ZONE_Y["lower"]
        blob = np.zeros_like(img)
        for _ in range(5):
            cy, cx = rng.uniform(y0 + 0.02, y1 - 0.02) * h, rng.uniform(x0 + 0.05, x1 - 0.05) * w
            blob = np.maximum(blob, _disc(img.shape, cy, cx, rng.uniform(0.05, 0.09) * w, edge=8))
        img += 0.40 * ndimage.gaussian_filter(blob, 6) * (1 - img)   # opacity: towards white, no clipping
    elif f["kind"] == "effusion":
        depth = {"small": 0.10, "moderate": 0.17}[f["grade"]] * h
        base = BASE_Y[f["side"]] * h
        xx = np.arange(w, dtype=np.float32)
        lateral = x0 * w if f["side"] == "right" else x1 * w       # meniscus rises laterally
        t = 1 - np.clip(np.abs(xx - lateral) / ((x1 - x0) * w), 0, 1)
        top = base - depth * (0.6 + 0.4 * t)
        yy = np.arange(h, dtype=np.float32)[:, None]
        inside = special.expit((yy - top[None, :]) / 3.0) * special.expit((base + 0.05 * h - yy) / 6.0)
        inside = inside * (special.expit((xx - (x0 - 0.03) * w) / 4.0) * special.expit(((x1 + 0.03) * w - xx) / 4.0))[None, :]
        img += 0.75 * ndimage.gaussian_filter(inside, 2) * (1 - img)


def _add_fracture(img: np.ndarray, zone: str, rng: np.random.Generator) -> None:
    h, w = img.shape
    y = rng.uniform(*SHAFT_Y[zone]) * h
    slope = rng.uniform(-0.15, 0.15)
    yy, xx = np.mgrid[:h, :w].astype(np.float32)
    line = np.exp(-((yy - (y + slope * (xx - w / 2))) ** 2) / (2 * 1.8 ** 2))
    band = (xx >= SHAFT_X[0] * w) & (xx <= SHAFT_X[1] * w)
    bone = img > np.percentile(img[band], 40)
    img -= 0.45 * line * band * bone


def _draw_findings(kind: str, rng: np.random.Generator) -> list[dict[str, Any]]:
    if kind == "tibia":
        return [{"kind": "fracture", "zone": str(rng.choice(["proximal", "mid"]))}] if rng.random() < 0.5 else []
    if rng.random() < 0.34:
        return []
    kinds = [str(k) for k in rng.choice(["nodule", "consolidation", "effusion"], size=int(rng.integers(1, 3)), replace=False)]
    out = []
    for k in sorted(kinds):
        f: dict[str, Any] = {"kind": k, "side": str(rng.choice(["right", "left"]))}
        if k == "nodule":
            f |= {"zone": str(rng.choice(["upper", "lower"])), "size": int(rng.integers(8, 25))}
        if k == "effusion":
            f |= {"grade": str(rng.choice(["small", "moderate"]))}
        out.append(f)
    return out


@lru_cache(maxsize=1)
def templates() -> dict[str, Any]:
    return yamlfile.safe_load(Path(__file__).with_name("templates.yaml").read_text())


def _fill(s: str, f: dict[str, Any]) -> str:
    side, zone, grade = f.get("side", ""), f.get("zone", ""), f.get("grade", "")
    return s.format(side=side, Side=side.capitalize(), zone=zone, size=f.get("size", ""),
                    grade=grade, Grade=grade.capitalize())


def write_reference_report(kind: str, findings: list[dict[str, Any]], rng: np.random.Generator) -> str:
    """FINDINGS + IMPRESSION, one templated sentence per slot, following the findings."""
    t = templates()[kind]

    def pick(key: str, f: dict[str, Any] | None = None) -> str:
        return _fill(t[key][int(rng.integers(len(t[key])))], f or {})

    by = {f["kind"]: f for f in findings}
    if kind == "chest":
        lung = [pick("nodule", by["nodule"])] if "nodule" in by else []
        lung += [pick("consolidation", by["consolidation"])] if "consolidation" in by else []
        body = (lung or [pick("lungs_normal")]) + \
            [pick("effusion", by["effusion"]) if "effusion" in by else pick("pleura_normal"),
             pick("heart"), pick("bones")]
        imp = [_fill(t["impression"][f["kind"]], f) for f in findings] or [pick("impression_normal")]
    else:
        frac = by.get("fracture")
        body = [pick("lesion"), pick("fracture", frac) if frac else pick("no_fracture"), pick("joint")]
        imp = ([_fill(t["impression"]["fracture"], frac)] if frac else []) + [t["impression"]["lesion"]]
    return "FINDINGS:\n" + " ".join(body) + "\n\nIMPRESSION:\n" + " ".join(imp) + "\n"


def _save_png(arr: np.ndarray, path: Path) -> None:
    from PIL import Image
    Image.fromarray(np.round(np.clip(arr, 0, 1) * 255).astype(np.uint8)).save(path, optimize=False)


def _coned(img: np.ndarray, kind: str) -> np.ndarray:
    from PIL import Image
    h, w = img.shape
    y0, y1 = (0.45, 0.85) if kind == "chest" else (0.45, 0.90)
    x0, x1 = (0.05, 0.95) if kind == "chest" else (0.25, 0.75)
    crop = img[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)]
    scale = WIDTH / crop.shape[1]
    return np.asarray(Image.fromarray(crop).resize((WIDTH, round(crop.shape[0] * scale)),
                                                   Image.Resampling.BILINEAR), dtype=np.float32)


def build_cxr_report_demo(paths: DatasetPaths, progress: Callable[[int, int, str], None] | None = None,
                          n_cases: int = 36, seed: int = 0) -> dict[str, Any]:
    n_cases = int(n_cases)
    if n_cases < 2:
        raise DatasetError("cxr-report-demo needs at least 2 studies")
    rng = np.random.default_rng(int(seed))
    n_tibia = max(1, n_cases // 6)
    kinds = ["chest"] * (n_cases - n_tibia) + ["tibia"] * n_tibia
    rng.shuffle(kinds)
    cases = []
    for i, kind in enumerate(kinds):
        cid = f"study_{i:03d}"
        pub, priv = paths.public / cid, paths.private / cid
        pub.mkdir(parents=True)
        priv.mkdir(parents=True)
        img = _jitter(base_image(kind), rng)
        findings = _draw_findings(kind, rng)
        for f in findings:
            if kind == "chest":
                _add_chest_finding(img, f, rng)
            else:
                _add_fracture(img, f["zone"], rng)
        img = img + rng.normal(0, rng.uniform(0.008, 0.02), img.shape).astype(np.float32)
        views = [{"file": "view1.png", "view_position": "PA" if kind == "chest" else "AP",
                  "description": "PA chest" if kind == "chest" else "AP tibia and ankle"}]
        _save_png(img, pub / "view1.png")
        if rng.random() < 0.67:
            _save_png(_coned(img, kind), pub / "view2.png")
            views.append({"file": "view2.png", "view_position": "CONED",
                          "description": "coned view of the lung bases" if kind == "chest"
                          else "coned view of the distal tibia"})
        study = {"study_id": cid, "modality": "CR", "body_part": "CHEST" if kind == "chest" else "LEG",
                 "indication": str(rng.choice(INDICATIONS[kind])), "views": views}
        (pub / "manifest.json").write_text(json.dumps(study, indent=2) + "\n")
        (priv / "report.txt").write_text(write_reference_report(kind, findings, rng), encoding="utf-8")
        (priv / "findings.json").write_text(json.dumps(findings, indent=2) + "\n")
        cases.append({"case_id": cid, "body_part": study["body_part"], "n_views": len(views),
                      "normal": not findings, "findings": [f["kind"] for f in findings]})
        if progress:
            progress(i + 1, n_cases, cid)
    return write_manifest(
        paths, dataset="cxr-report-demo",
        description=("Radiology report generation, embedded demo: real radiographs from pydicom-data "
                     "(PA chest, AP tibia), SIMULATED findings, templated reference reports."),
        cases=cases,
        provenance={"images": {k: f"pydicom-data {v}" for k, v in SOURCES.items()},
                    "findings": "simulated (nodule, consolidation, pleural effusion; tibial fracture)",
                    "reports": "templated from the simulated findings (templates.yaml)",
                    "multi_view": "second image = simulated coned view of the same exposure",
                    "seed": int(seed), "n_cases": n_cases})
