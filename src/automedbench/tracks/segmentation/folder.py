"""Segmentation's `from_folder` hook: a folder of images and a folder of label maps
(docs/your-task.md, "Segmentation"):

    DIR/images/<case_id>.nii.gz   the input volume  -> public/<case_id>/<input_file>
    DIR/labels/<case_id>.nii.gz   the label map     -> private/<case_id>/...
      organ_lesion: 0 background, 1 organ, 2 lesion (inside the organ)
                    -> <organ_file> (label >= 1), <lesion_file> (label == 2); lesion_positive
      multiclass:   the values of track_options.labels -> <label_file> as it is

An image without a label map is skipped ("no segmentation"), a label map without an image
too ("no image"); a label map whose shape differs from its image, or holding values the
task does not name, is refused (the core then loads every reference with load_reference).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...data import DatasetError, DatasetPaths, link_or_copy
from ...data.from_folder import FolderCases
from ..nifti_io import make_nifti, read_nifti, save_nifti_gz

SUFFIX = ".nii.gz"


def _ids(folder: Path) -> dict[str, Path]:
    return {p.name[: -len(SUFFIX)]: p for p in sorted(folder.glob(f"*{SUFFIX}"))} if folder.is_dir() else {}


def from_folder(src: Path, dest: DatasetPaths, options: Any) -> FolderCases:
    images, labels = _ids(src / "images"), _ids(src / "labels")
    if not images:
        raise DatasetError(f"{src}/images/ holds no <case_id>{SUFFIX} file (segmentation layout: "
                           "images/ + labels/, docs/your-task.md)")
    out = FolderCases()
    for cid in sorted(set(images) | set(labels)):
        if cid not in labels:
            out.skipped[cid] = "no segmentation"
            continue
        if cid not in images:
            out.skipped[cid] = "no image"
            continue
        image, affine = read_nifti(images[cid])
        label, _ = read_nifti(labels[cid])
        if image.shape[:3] != label.shape[:3]:
            raise DatasetError(f"case {cid!r}: label map shape {label.shape} differs from the image's {image.shape}")
        values = set(np.unique(label).astype(int).tolist()) - {0}
        allowed = set(options.labels) if options.variant == "multiclass" else {1, 2}
        if values - allowed:
            raise DatasetError(f"case {cid!r}: label values {sorted(values - allowed)} are not "
                               f"{sorted(allowed)} (track_options of the task)")
        link_or_copy(images[cid], dest.public / cid / options.input_file, link=False)
        meta: dict[str, Any] = {"case_id": cid}
        if options.variant == "multiclass":
            link_or_copy(labels[cid], dest.private / cid / options.label_file, link=False)
        else:
            save_nifti_gz(make_nifti((label >= 1).astype(np.uint8), affine), dest.private / cid / options.organ_file)
            save_nifti_gz(make_nifti((label == 2).astype(np.uint8), affine), dest.private / cid / options.lesion_file)
            meta["lesion_positive"] = bool(np.any(label == 2))
        out.cases.append(meta)
    return out
