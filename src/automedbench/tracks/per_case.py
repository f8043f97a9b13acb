"""What the per-case image tracks whose reference is one file per case share (enhancement,
synthesis): the gold submission, and why a flat output failed. Reducers over scored cases live
in tracks/reducers.py."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np


def gold_submission(dataset_root: Path, outputs: Path, reference_file: str, output_file: str) -> None:
    """Copy private/<case_id>/<reference_file> to outputs/<case_id>/<output_file> for every
    case of the manifest: a perfect submission."""
    root = Path(dataset_root)
    for case in json.loads((root / "manifest.json").read_text())["cases"]:
        dest = Path(outputs) / case["case_id"]
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / "private" / case["case_id"] / reference_file, dest / output_file)

FLAT_SHARE = 0.02   # an output whose spread is under 2 % of the reference's is called flat


def flat_output_why(prediction: np.ndarray, reference: np.ndarray) -> str:
    """Why a case failed when the output is flat (one value, or almost no spread against the
    reference's): the clear failure behind a near-zero SSIM (docs/tracks.md `extra["why"]`)."""
    p, ref = np.asarray(prediction, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    sd_p, sd_r = float(np.nanstd(p)), float(np.nanstd(ref))
    if sd_r <= 0 or sd_p >= FLAT_SHARE * sd_r:
        return ""
    if sd_p == 0:
        return f"flat output: every pixel is {float(np.nanmax(p)):.4g} (ground truth {float(np.nanmin(ref)):.4g} to {float(np.nanmax(ref)):.4g})"
    return f"nearly flat output: its spread (sd {sd_p:.3g}) is {100 * sd_p / sd_r:.1f}% of the ground truth's (sd {sd_r:.3g})"
