"""Segmentation's folder layouts (docs/your-task.md section 2, "Segmentation"), in detection order:

msd      Medical Segmentation Decathlon / nnU-Net: imagesTr/ + labelsTr/ (+ dataset.json, imagesTs/)
folders  images/ + labels/

Both read an image as `<case_id>.nii.gz` or, one file per channel, `<case_id>_0000.nii.gz`,
`<case_id>_0001.nii.gz`, ... (nnU-Net's channel suffix). Channel 0 becomes public/<case_id>/
<input_file>; channel k > 0 becomes <input_file> with `_000k` before `.nii.gz` (list those in
the task's input_files). The label map `labels*/<case_id>.nii.gz` is split as the variant reads it:
  organ_lesion: 0 background, 1 organ, 2 lesion -> <organ_file> (>= 1), <lesion_file> (== 2); lesion_positive
  multiclass:   the values of track_options.labels -> <label_file> as it is
With a dataset.json (MSD `{"0": "background", ...}` or nnU-Net v2 `{"background": 0, ...}`
labels; `modality` / `channel_names`), its labels must be the task's, or staging says which
track_options to write; imagesTs/ (no labels) is reported as not staged.

An image without a label map is skipped ("no segmentation"), a label map without an image too
("no image"); a label map whose shape differs from its image, or holding values the task does
not name, is refused naming the case (the core then loads every reference with load_reference).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ...data import DatasetError
from ...data.from_folder import GENERIC_LAYOUT, FolderCases, FolderLayout, StagingFolder
from ..nifti_io import make_nifti, read_nifti, save_nifti_gz

SUFFIX = ".nii.gz"
CHANNEL = re.compile(r"^(?P<case>.+)_(?P<channel>\d{4})$")


def channel_file(input_file: str, channel: int) -> str:
    """Where channel `channel` of a case lands in public/<case_id>/ (0: the task's input_file)."""
    if channel == 0:
        return input_file
    stem = input_file[: -len(SUFFIX)] if input_file.endswith(SUFFIX) else Path(input_file).stem
    return f"{stem}_{channel:04d}{SUFFIX}"


def _files(folder: Path) -> dict[str, Path]:
    return {p.name[: -len(SUFFIX)]: p for p in sorted(folder.glob(f"*{SUFFIX}"))
            if not p.name.startswith(".")} if folder.is_dir() else {}


def _images(folder: Path, label_ids: set[str]) -> dict[str, dict[int, Path]]:
    """case_id -> {channel: file}: `<id>_0000` is channel 0 of case <id> unless <id>_0000 itself
    has a label map (then it is a case named so)."""
    out: dict[str, dict[int, Path]] = {}
    for stem, path in _files(folder).items():
        m = CHANNEL.match(stem)
        if m and stem not in label_ids:
            out.setdefault(m["case"], {})[int(m["channel"])] = path
        else:
            out.setdefault(stem, {})[0] = path
    return out


def _dataset_json(src: Path) -> tuple[dict[int, str], list[str]]:
    """(label value -> name, channel names) from dataset.json; empty when there is none."""
    path = src / "dataset.json"
    if not path.is_file():
        return {}, []
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        raw = meta.get("labels") or {}
        labels = {int(k): str(v) for k, v in raw.items()} if all(str(k).isdigit() for k in raw) \
            else {int(v): str(k) for k, v in raw.items()}          # nnU-Net v2: name -> value
        chans = meta.get("channel_names") or meta.get("modality") or {}
        channels = [str(chans[k]) for k in sorted(chans, key=int)]
    except (ValueError, TypeError, AttributeError) as exc:
        raise DatasetError(f"{path}: not a readable dataset.json ({type(exc).__name__}: {exc}); fix the file "
                           "or remove it (labels then come from the task's track_options)") from None
    return {k: v for k, v in labels.items() if k != 0}, channels


def _check_labels(declared: dict[int, str], options: Any) -> None:
    """dataset.json's labels against the task's: a mismatch says what to write in task.yaml."""
    if not declared:
        return
    wanted = "{" + ", ".join(f"{k}: {v}" for k, v in sorted(declared.items())) + "}"
    if options.variant == "multiclass" and set(declared) != set(options.labels):
        raise DatasetError(f"dataset.json labels {wanted} are not the task's track_options.labels "
                           f"{dict(sorted(options.labels.items()))}; fix: set `labels: {wanted}` in task.yaml")
    if options.variant == "organ_lesion" and not set(declared) <= {1, 2}:
        raise DatasetError(f"dataset.json labels {wanted} do not fit variant organ_lesion (1 organ, 2 lesion); "
                           f"fix: set `variant: multiclass` and `labels: {wanted}` in task.yaml's track_options")


def _stage(src: Path, dest: StagingFolder, options: Any, images_dir: str, labels_dir: str,
           layout: str) -> FolderCases:
    labels = _files(src / labels_dir)
    images = _images(src / images_dir, set(labels))
    if not images:
        raise DatasetError(f"layout {layout!r}: {src}/{images_dir}/ holds no <case_id>{SUFFIX} or "
                           f"<case_id>_0000{SUFFIX} file; fix: put the images there (docs/your-task.md section 2)")
    if not labels:
        raise DatasetError(f"layout {layout!r}: {src}/{labels_dir}/ holds no <case_id>{SUFFIX} label map; "
                           f"fix: put one label map per case there, named as its image without _0000")
    declared, channel_names = _dataset_json(src)
    _check_labels(declared, options)
    n_channels = max(len(channel_names), max(max(ch) + 1 for ch in images.values()))
    out = FolderCases()
    for cid in sorted(set(images) | set(labels)):
        if cid not in labels:
            out.skipped[cid] = "no segmentation"
            continue
        if cid not in images:
            out.skipped[cid] = "no image"
            continue
        missing = [f"_{c:04d}" for c in range(n_channels) if c not in images[cid]]
        if missing:
            raise DatasetError(f"case {cid!r}: {images_dir}/ has no channel {', '.join(missing)} of the "
                               f"{n_channels} the folder holds; fix: add {cid}{missing[0]}{SUFFIX} or drop the case")
        image, affine = read_nifti(images[cid][0])
        label, _ = read_nifti(labels[cid])
        if image.shape[:3] != label.shape[:3]:
            raise DatasetError(f"case {cid!r}: label map shape {label.shape} differs from the image's {image.shape}")
        values = set(np.unique(label).astype(int).tolist()) - {0}
        allowed = set(options.labels) if options.variant == "multiclass" else {1, 2}
        if values - allowed:
            raise DatasetError(f"case {cid!r}: label values {sorted(values - allowed)} are not "
                               f"{sorted(allowed)} (track_options of the task)")
        for channel, path in images[cid].items():
            dest.place(path, dest.public / cid / channel_file(options.input_file, channel))
        meta: dict[str, Any] = {"case_id": cid}
        if options.variant == "multiclass":
            dest.place(labels[cid], dest.private / cid / options.label_file)
        else:
            save_nifti_gz(make_nifti((label >= 1).astype(np.uint8), affine), dest.private / cid / options.organ_file)
            save_nifti_gz(make_nifti((label == 2).astype(np.uint8), affine), dest.private / cid / options.lesion_file)
            meta["lesion_positive"] = bool(np.any(label == 2))
        out.cases.append(meta)
    tests = _images(src / "imagesTs", set()) if images_dir == "imagesTr" else {}
    if tests:
        out.notes.append(f"imagesTs/: {len(tests)} test case(s) not staged (no label maps to score against)")
    out.facts = {"channels": channel_names or [f"channel {c}" for c in range(n_channels)],
                 "channel_files": [channel_file(options.input_file, c) for c in range(n_channels)],
                 **({"labels": {str(k): v for k, v in sorted(declared.items())}} if declared else {})}
    return out


def _msd(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    return _stage(src, dest, options, "imagesTr", "labelsTr", "msd")


def _folders(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    return _stage(src, dest, options, "images", "labels", "folders")


LAYOUTS = [
    FolderLayout("msd", "imagesTr/<case>[_0000].nii.gz + labelsTr/<case>.nii.gz (+ dataset.json, imagesTs/)",
                 lambda src: (src / "imagesTr").is_dir(), _msd),
    FolderLayout("folders", "images/<case>[_0000].nii.gz + labels/<case>.nii.gz",
                 lambda src: (src / "images").is_dir(), _folders),
    GENERIC_LAYOUT,
]
