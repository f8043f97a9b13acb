"""The gold submission shared by the per-case image tracks whose reference is one file per case
(enhancement, synthesis). Reducers over scored cases live in tracks/reducers.py."""
from __future__ import annotations

import json
import shutil
from pathlib import Path


def gold_submission(dataset_root: Path, outputs: Path, reference_file: str, output_file: str) -> None:
    """Copy private/<case_id>/<reference_file> to outputs/<case_id>/<output_file> for every
    case of the manifest: a perfect submission."""
    root = Path(dataset_root)
    for case in json.loads((root / "manifest.json").read_text())["cases"]:
        dest = Path(outputs) / case["case_id"]
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / "private" / case["case_id"] / reference_file, dest / output_file)
