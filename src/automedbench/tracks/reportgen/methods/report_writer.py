"""Rule-based report writer for radiographs (the scripted reference agent's method).

Reads ONLY the public study folders (manifest.json + images). Classical, no model:
  1. per study, the frontal view (PA/AP; the first view when none is marked) as grey levels,
     percentile-normalised;
  2. chest: mean density of each hemithorax's lower zone and base (consolidation / effusion)
     and the strongest blob response (difference of Gaussians) per zone (nodule);
     leg: the deepest transverse lucent line across the tibial shaft (fracture);
  3. each feature as a robust z-score against the cohort (median / MAD over all studies of
     the same body part: most studies are normal in any one zone);
  4. thresholds → findings → sentences, FINDINGS + IMPRESSION.

usage: python report_writer.py DATA_DIR OUT_DIR [--only STUDY_ID] [--careless]
  --careless  reproduces a realistic bug: ignores the manifest's body part and treats every
              study as a chest film (leg studies get chest features and a chest report).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage

LUNG_X = {"right": (0.16, 0.38), "left": (0.60, 0.86)}   # patient right = image left (PA)
ZONES = {"upper": (0.16, 0.42), "lower": (0.46, 0.68)}
T_CONSOLIDATION, T_EFFUSION, T_NODULE, T_FRACTURE = 2.2, 1.15, 2.7, 2.5
MM_PER_PX_256 = 1.4   # nominal detector pixel at 256 px across a chest film


def frontal_view(study: dict) -> str:
    views = study.get("views", [])
    for v in views:
        if str(v.get("view_position", "")).upper() in ("PA", "AP", "FRONTAL"):
            return v["file"]
    return views[0]["file"]


def load(path: Path, width: int | None) -> np.ndarray:
    img = np.asarray(Image.open(path).convert("F"), dtype=np.float32)
    if width:
        img = np.asarray(Image.fromarray(img).resize((width, round(img.shape[0] * width / img.shape[1]))), dtype=np.float32)
    lo, hi = np.percentile(img, [2, 98])
    return (img - lo) / max(hi - lo, 1e-6)


def chest_features(a: np.ndarray) -> dict[str, float]:
    h, w = a.shape
    dog = ndimage.gaussian_filter(a, 2.5) - ndimage.gaussian_filter(a, 8)
    f = {}
    for side, (x0, x1) in LUNG_X.items():
        xs = slice(int(x0 * w), int(x1 * w))
        f[f"{side}_base"] = float(a[int(0.60 * h):int(0.74 * h), xs].mean())
        f[f"{side}_lower"] = float(a[int(0.48 * h):int(0.64 * h), xs].mean())
        for zone, (y0, y1) in ZONES.items():
            f[f"{side}_nodule_{zone}"] = float(dog[int(y0 * h):int(y1 * h), xs].max())
            region = dog[int(y0 * h):int(y1 * h), xs]
            peak = region.max()
            f[f"{side}_nodule_{zone}_mm"] = float(2 * np.sqrt((region > peak / 2).sum() / np.pi) * MM_PER_PX_256)
    return f


def leg_features(a: np.ndarray) -> dict[str, float]:
    h, w = a.shape
    prof = a[:, int(0.43 * w):int(0.55 * w)].mean(1)
    dip = ndimage.median_filter(prof, 25) - prof
    return {"fracture_proximal": float(dip[int(0.06 * h):int(0.24 * h)].max()),
            "fracture_mid": float(dip[int(0.26 * h):int(0.44 * h)].max())}


def robust_z(rows: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    keys = next(iter(rows.values())).keys()
    z: dict[str, dict[str, float]] = {sid: {} for sid in rows}
    for k in keys:
        vals = np.array([r[k] for r in rows.values()])
        med = np.median(vals)
        mad = 1.4826 * np.median(np.abs(vals - med)) + 1e-6
        for sid, r in rows.items():
            z[sid][k] = float((r[k] - med) / mad)
    return z


def chest_report(z: dict[str, float], raw: dict[str, float]) -> str:
    lungs, pleura, impression = [], [], []
    for side in ("right", "left"):
        for zone in ("upper", "lower"):
            if z[f"{side}_nodule_{zone}"] >= T_NODULE:
                size = round(min(max(raw[f"{side}_nodule_{zone}_mm"], 6), 30))
                lungs.append(f"There is a {size} mm nodular opacity in the {side} {zone} zone.")
                impression.append(f"{side.capitalize()} {zone} zone nodule of about {size} mm; CT is suggested.")
        if z[f"{side}_lower"] >= T_CONSOLIDATION and z[f"{side}_lower"] > z[f"{side}_base"] + 0.5:
            lungs.append(f"There is airspace opacity in the {side} lower zone, suggesting consolidation.")
            impression.append(f"{side.capitalize()} lower zone consolidation.")
        elif z[f"{side}_base"] >= T_EFFUSION:
            pleura.append(f"There is a {side} pleural effusion blunting the {side} costophrenic angle.")
            impression.append(f"{side.capitalize()} pleural effusion.")
    body = (lungs or ["The lungs are clear."]) + \
        (pleura + ["No pneumothorax."] if pleura else ["No pleural effusion or pneumothorax."]) + \
        ["The cardiomediastinal silhouette is normal.", "No acute osseous abnormality."]
    return "FINDINGS:\n" + " ".join(body) + "\n\nIMPRESSION:\n" + (" ".join(impression) or "No acute cardiopulmonary abnormality.") + "\n"


def leg_report(z: dict[str, float]) -> str:
    body = ["There is a lucent lesion with a sclerotic margin in the distal tibial metaphysis, likely a non-ossifying fibroma."]
    zone = max(("proximal", "mid"), key=lambda k: z[f"fracture_{k}"])
    fracture = z[f"fracture_{zone}"] >= T_FRACTURE
    body.append(f"There is a transverse fracture of the {zone} tibial shaft." if fracture else "No acute fracture.")
    body.append("The ankle joint is preserved.")
    imp = ([f"Transverse fracture of the {zone} tibial shaft."] if fracture else []) + ["Non-ossifying fibroma of the distal tibia."]
    return "FINDINGS:\n" + " ".join(body) + "\n\nIMPRESSION:\n" + " ".join(imp) + "\n"


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    careless = "--careless" in argv
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    if only in args:
        args.remove(only)
    data, out = Path(args[0]), Path(args[1])
    studies = {p.name: json.loads((p / "manifest.json").read_text())
               for p in sorted(data.iterdir()) if (p / "manifest.json").is_file()}
    groups: dict[str, dict[str, dict[str, float]]] = {"CHEST": {}, "LEG": {}}
    for sid, st in studies.items():
        part = "CHEST" if careless or str(st.get("body_part", "CHEST")).upper() == "CHEST" else "LEG"
        img = load(data / sid / frontal_view(st), 256 if part == "CHEST" else None)
        groups[part][sid] = chest_features(img) if part == "CHEST" else leg_features(img)
    written = 0
    for part, rows in groups.items():
        if not rows:
            continue
        zs = robust_z(rows)
        for sid in rows:
            if only and sid != only:
                continue
            text = chest_report(zs[sid], rows[sid]) if part == "CHEST" else leg_report(zs[sid])
            (out / sid).mkdir(parents=True, exist_ok=True)
            (out / sid / "report.txt").write_text(text, encoding="utf-8")
            written += 1
    print(f"wrote {written} report(s) for {len(studies)} studies into {out}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
