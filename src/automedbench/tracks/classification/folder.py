"""Classification's `from_folder` hook: a folder of images and a labels table
(docs/your-task.md, "Classification"):

    DIR/images/<case_id>.<ext>   ext = that of track_options.image_file (png by default)
                                 -> public/<case_id>/<image_file>
    DIR/labels.csv               header `case_id,label`; one row per case
                                 -> private/<case_id>/label.txt

An image without a row is skipped ("no label"), a row without an image too ("no image"); a
label that is not one of the task's `labels` is refused (load_reference says so).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ...data import DatasetError, DatasetPaths, link_or_copy
from ...data.from_folder import FolderCases, read_case_table
from .options import REFERENCE_FILE


def from_folder(src: Path, dest: DatasetPaths, options: Any) -> FolderCases:
    ext = Path(options.image_file).suffix
    images = {p.name[: -len(ext)]: p for p in sorted((src / "images").glob(f"*{ext}"))} \
        if (src / "images").is_dir() else {}
    if not images:
        raise DatasetError(f"{src}/images/ holds no <case_id>{ext} file (classification layout: "
                           "images/ + labels.csv, docs/your-task.md)")
    if not (src / "labels.csv").is_file():
        raise DatasetError(f"{src}/labels.csv is missing (header `case_id,label`, docs/your-task.md)")
    table = read_case_table(src / "labels.csv")
    out = FolderCases()
    for cid in sorted(set(images) | set(table)):
        label = table.get(cid, {}).get("label")
        if cid not in images:
            out.skipped[cid] = "no image"
            continue
        if not label:
            out.skipped[cid] = "no label"
            continue
        link_or_copy(images[cid], dest.public / cid / options.image_file, link=False)
        (dest.private / cid).mkdir(parents=True, exist_ok=True)
        (dest.private / cid / REFERENCE_FILE).write_text(label + "\n", encoding="utf-8")
        out.cases.append({"case_id": cid})
    return out
