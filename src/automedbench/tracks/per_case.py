"""Pieces shared by the per-case image tracks whose reference is one file per case
(enhancement, synthesis): reading a metric off the scored cases, and the gold submission."""
from __future__ import annotations

import json
import shutil
from pathlib import Path


def values(metrics: list[dict[str, float | None]], key: str) -> list[float]:
    """The `key` values of the cases that have one (None = not computed for that case)."""
    return [float(v) for m in metrics if (v := m.get(key)) is not None]


def gold_submission(dataset_root: Path, outputs: Path, reference_file: str, output_file: str) -> None:
    """Copy private/<case_id>/<reference_file> to outputs/<case_id>/<output_file> for every
    case of the manifest: a perfect submission."""
    root = Path(dataset_root)
    for case in json.loads((root / "manifest.json").read_text())["cases"]:
        dest = Path(outputs) / case["case_id"]
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / "private" / case["case_id"] / reference_file, dest / output_file)
