"""Few-shot nearest-neighbour classifier on simple image statistics (reference, modality-patches).

No learning from the cases: each patch becomes a vector of 18 hand-made statistics
(colour saturation, intensity percentiles, dark/bright fractions, edges, fine and coarse
texture/speckle, entropy, smoothness); the features are standardised with the mean/sd of all
public images (cases + examples — no labels involved), and a case gets the label of its
nearest labelled example (1-NN, Euclidean) among those the task publishes in
`_examples/labels.csv`. (1-NN beats class-mean prototypes here: a class's examples come from
different source images that look different.) Needs numpy, scipy and pillow.
Usage: python patch_classifier.py DATA_DIR OUT_CSV [IMAGE_FILE]
(IMAGE_FILE: the image each case folder holds, the task's declared file; default image.png)
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage


def load(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.float32) / 255.0


def features(rgb: np.ndarray) -> np.ndarray:
    gray = rgb.mean(axis=2)
    sat = rgb.max(axis=2) - rgb.min(axis=2)
    grad = np.hypot(ndimage.sobel(gray, 0), ndimage.sobel(gray, 1))
    fine = gray - ndimage.gaussian_filter(gray, 1.0)
    hist = np.histogram(gray, bins=32, range=(0, 1))[0] / gray.size
    entropy = -np.sum(hist[hist > 0] * np.log(hist[hist > 0]))
    g = gray - gray.mean()
    lag1 = float((g[:, 1:] * g[:, :-1]).mean() / (g.var() + 1e-6))
    flat = float(np.mean(np.abs(np.diff(gray, axis=1)) < 1e-3))
    coarse = ndimage.gaussian_filter(gray, 1.0) - ndimage.gaussian_filter(gray, 3.0)
    p5, p50, p95 = np.percentile(gray, [5, 50, 95])
    return np.array([sat.mean(), np.mean(sat > 0.2), gray.mean(), gray.std(), np.mean(gray < 0.06),
                     np.mean(gray > 0.9), grad.mean(), np.mean(grad > 0.5), fine.std(), coarse.std(),
                     fine.std() / (coarse.std() + 1e-3), entropy, lag1, flat, p5, p50, p95,
                     np.abs(np.diff(rgb, axis=2)).mean()], dtype=np.float64)


def case_dirs(data_dir: Path) -> list[Path]:
    return sorted(p for p in Path(data_dir).iterdir() if p.is_dir() and not p.name.startswith("_"))


def prototypes(data_dir: Path) -> tuple[list[str], np.ndarray, list[str]]:
    """(class names, example feature matrix, example labels) from _examples/labels.csv."""
    ex = Path(data_dir) / "_examples"
    if not (ex / "labels.csv").is_file():   # a task staged without examples: say what it needs
        raise SystemExit(f"{ex}/labels.csv is missing: this few-shot method needs labelled examples "
                         "(a task staged from a folder gets them with `examples_per_class: N` in track_options)")
    with open(ex / "labels.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    labels = list(dict.fromkeys(r["label"] for r in rows))
    feats = np.stack([features(load(ex / r["file"])) for r in rows])
    return labels, feats, [r["label"] for r in rows]


def classify(data_dir: Path, cases: list[Path], image_file: str = "image.png") -> list[str]:
    """Predicted label per case directory, from each case's `image_file`."""
    _, ex_feats, ex_labels = prototypes(data_dir)
    feats = np.stack([features(load(c / image_file)) for c in cases])
    both = np.vstack([feats, ex_feats])
    mu, sd = both.mean(axis=0), both.std(axis=0) + 1e-9
    z, ez = (feats - mu) / sd, (ex_feats - mu) / sd
    dist = ((z[:, None, :] - ez[None]) ** 2).sum(axis=2)
    return [ex_labels[i] for i in dist.argmin(axis=1)]


def main(argv: list[str]) -> int:
    data_dir, out_csv = Path(argv[1]), Path(argv[2])
    cases = case_dirs(data_dir)
    preds = classify(data_dir, cases, *argv[3:4])
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    with open(out_csv, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["patient_id", "label"])
        w.writerows((c.name, p) for c, p in zip(cases, preds))
    print(f"{len(cases)} cases classified into {out_csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
