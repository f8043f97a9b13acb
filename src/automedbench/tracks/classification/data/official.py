"""Stagers for the official classification datasets, from a LOCAL copy of each release (never
redistributed, never downloaded here). Each writes public/<case_id>/image.png (the image
decoded and re-encoded losslessly as PNG), private/<case_id>/label.txt and a manifest whose
entries carry `label` and the source file. Case ids are anonymous (`pt_00000`, ...) in a seeded
shuffled order, so neither the id nor the order reveals the label.

Layouts expected under `source` (as the releases unpack):
  Brain-Tumor-MRI (Kaggle, Nickparvar)  Testing/<glioma|meningioma|notumor|pituitary>/*.jpg
                                        (split="train": Training/)
  NCT-CRC-HE (Kather et al., Zenodo)    CRC-VAL-HE-7K/<ADI|BACK|DEB|LYM|MUC|MUS|NORM|STR|TUM>/*.tif
                                        (split="train": NCT-CRC-HE-100K/)
  Kermany pneumonia (Mendeley v2)       chest_xray/test/<NORMAL|PNEUMONIA>/*.jpeg (split="train")
  PatchCamelyon (Veeling et al.)        camelyonpatch_level_2_split_test_x.h5 / _y.h5 (needs h5py;
                                        label 1 = tumour in the centre 32x32 region)
  ISIC 2019 (ISIC Archive)              ISIC_2019_Training_Input/*.jpg +
                                        ISIC_2019_Training_GroundTruth.csv (one-hot MEL, NV, BCC,
                                        AK, BKL, DF, VASC, SCC; UNK rows are skipped)
`limit` takes classes in turn (round robin) so a small staged set stays balanced as far as the
source allows.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ....data import DatasetError, DatasetPaths, write_manifest

Progress = Callable[[int, int, str], None]
IMAGE_EXT = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp")

BRAIN_TUMOR_LABELS = ("glioma", "meningioma", "notumor", "pituitary")
NCT_CRC_LABELS = ("ADI", "BACK", "DEB", "LYM", "MUC", "MUS", "NORM", "STR", "TUM")
KERMANY_LABELS = ("NORMAL", "PNEUMONIA")
PCAM_LABELS = ("normal", "tumor")
ISIC_LABELS = ("MEL", "NV", "BCC", "AK", "BKL", "DF", "VASC", "SCC")

# an item: (source name for the manifest, label, a function returning the image as PNG bytes)
Item = tuple[str, str, Callable[[], bytes]]


def _source_dir(source: str | Path | None, name: str) -> Path:
    if not source:
        raise DatasetError(f"{name}: pass source=<path to your local copy of the official release>")
    root = Path(source).expanduser()
    if not root.is_dir():
        raise DatasetError(f"{name}: source {root} is not a folder")
    return root


def _png_of_file(path: Path) -> Callable[[], bytes]:
    def load() -> bytes:
        from PIL import Image
        with Image.open(path) as im:
            buf = io.BytesIO()
            (im if im.mode in ("L", "RGB", "I;16") else im.convert("RGB")).save(buf, format="PNG")
            return buf.getvalue()
    return load


def _png_of_array(arr: np.ndarray) -> Callable[[], bytes]:
    def load() -> bytes:
        from PIL import Image
        buf = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(arr)).save(buf, format="PNG")
        return buf.getvalue()
    return load


def _balanced(items: list[Item], labels: tuple[str, ...], limit: int | None) -> list[Item]:
    if limit is None:
        return items
    queues = {lab: [it for it in items if it[1] == lab] for lab in labels}
    out: list[Item] = []
    while len(out) < int(limit) and any(queues.values()):
        for lab in labels:
            if queues[lab] and len(out) < int(limit):
                out.append(queues[lab].pop(0))
    return out


def _stage(paths: DatasetPaths, items: list[Item], *, dataset: str, labels: tuple[str, ...],
           description: str, provenance: dict[str, Any], progress: Progress | None,
           seed: int = 0) -> dict[str, Any]:
    if not items:
        raise DatasetError(f"{dataset}: no labelled images found in the source (check the layout "
                           "in docs/tracks/classification.md)")
    order = np.random.default_rng(seed).permutation(len(items))
    cases = []
    for i, j in enumerate(order):
        name, label, load = items[int(j)]
        cid = f"pt_{i:05d}"
        (paths.public / cid).mkdir(parents=True, exist_ok=True)
        (paths.private / cid).mkdir(parents=True, exist_ok=True)
        (paths.public / cid / "image.png").write_bytes(load())
        (paths.private / cid / "label.txt").write_text(label + "\n")
        cases.append({"case_id": cid, "label": label, "source_file": name})
        if progress:
            progress(i + 1, len(items), cid)
    return write_manifest(paths, dataset=dataset, description=description, cases=cases,
                          provenance={**provenance, "labels": list(labels), "inputs": ["image.png"],
                                      "references": ["label.txt"]})


def _folder_items(root: Path, labels: tuple[str, ...], dataset: str) -> list[Item]:
    items: list[Item] = []
    for lab in labels:
        folder = root / lab
        if not folder.is_dir():
            raise DatasetError(f"{dataset}: class folder {folder} is missing")
        for f in sorted(folder.iterdir()):
            if f.suffix.lower() in IMAGE_EXT and f.is_file():
                items.append((f"{lab}/{f.name}", lab, _png_of_file(f)))
    return items


def stage_brain_tumor_mri(paths: DatasetPaths, source: str | Path | None = None, split: str = "test",
                          limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "brain-tumor-mri") / ("Testing" if split == "test" else "Training")
    items = _balanced(_folder_items(root, BRAIN_TUMOR_LABELS, "brain-tumor-mri"), BRAIN_TUMOR_LABELS, limit)
    return _stage(paths, items, dataset="brain-tumor-mri", labels=BRAIN_TUMOR_LABELS, progress=progress,
                  description="Brain Tumor MRI: glioma / meningioma / no tumour / pituitary (local copy).",
                  provenance={"source": "Brain Tumor MRI Dataset (Kaggle, M. Nickparvar), CC0", "split": split})


def stage_nct_crc_he(paths: DatasetPaths, source: str | Path | None = None, split: str = "test",
                     limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "nct-crc-he") / ("CRC-VAL-HE-7K" if split == "test" else "NCT-CRC-HE-100K")
    items = _balanced(_folder_items(root, NCT_CRC_LABELS, "nct-crc-he"), NCT_CRC_LABELS, limit)
    return _stage(paths, items, dataset="nct-crc-he", labels=NCT_CRC_LABELS, progress=progress,
                  description="NCT-CRC-HE colorectal H&E tissue tiles, 9 classes (local copy).",
                  provenance={"source": "Kather et al., NCT-CRC-HE-100K / CRC-VAL-HE-7K (Zenodo 1214456), CC BY 4.0",
                              "split": split})


def stage_kermany_pneumonia(paths: DatasetPaths, source: str | Path | None = None, split: str = "test",
                            limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "kermany-pneumonia")
    root = root / "chest_xray" if (root / "chest_xray").is_dir() else root
    items = _balanced(_folder_items(root / split, KERMANY_LABELS, "kermany-pneumonia"), KERMANY_LABELS, limit)
    return _stage(paths, items, dataset="kermany-pneumonia", labels=KERMANY_LABELS, progress=progress,
                  description="Kermany paediatric chest X-rays, NORMAL vs PNEUMONIA (local copy).",
                  provenance={"source": "Kermany et al., Cell 2018 (Mendeley Data v2), CC BY 4.0", "split": split})


def _pcam_patch(x_path: Path, i: int) -> Callable[[], bytes]:
    def load() -> bytes:
        import h5py
        with h5py.File(x_path, "r") as fx:        # read one patch at a time (the file is ~1 GB)
            return _png_of_array(np.asarray(fx["x"][i]))()
    return load


def _pcam_items(root: Path, split: str) -> list[Item]:
    try:
        import h5py
    except ImportError:
        raise DatasetError("pcam: staging PatchCamelyon needs h5py (pip install h5py)") from None
    x_path = root / f"camelyonpatch_level_2_split_{split}_x.h5"
    y_path = root / f"camelyonpatch_level_2_split_{split}_y.h5"
    for p in (x_path, y_path):
        if not p.is_file():
            raise DatasetError(f"pcam: {p} not found")
    with h5py.File(y_path, "r") as fy:
        ys = np.asarray(fy["y"]).reshape(-1)
    return [(f"{x_path.name}[{i}]", PCAM_LABELS[int(y)], _pcam_patch(x_path, i)) for i, y in enumerate(ys)]


def stage_pcam(paths: DatasetPaths, source: str | Path | None = None, split: str = "test",
               limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "pcam")
    items = _balanced(_pcam_items(root, split), PCAM_LABELS, limit)
    return _stage(paths, items, dataset="pcam", labels=PCAM_LABELS, progress=progress,
                  description="PatchCamelyon 96x96 lymph-node patches, normal vs tumour (local copy).",
                  provenance={"source": "Veeling et al., PatchCamelyon (github.com/basveeling/pcam), CC0",
                              "split": split})


def stage_isic(paths: DatasetPaths, source: str | Path | None = None, split: str = "",
               limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "isic2019")
    gt = next(iter(sorted(root.rglob("*GroundTruth*.csv"))), None)
    if gt is None:
        raise DatasetError(f"isic2019: no *GroundTruth*.csv under {root}")
    images = {p.stem: p for p in root.rglob("*.jpg")}
    items: list[Item] = []
    with open(gt, newline="") as fh:
        for row in csv.DictReader(fh):
            hot = [lab for lab in ISIC_LABELS if float(row.get(lab) or 0) == 1.0]
            if len(hot) != 1:
                continue       # UNK or malformed row: not one of the 8 diagnoses
            if row["image"] not in images:
                raise DatasetError(f"isic2019: image {row['image']} listed in {gt.name} is missing")
            items.append((images[row["image"]].name, hot[0], _png_of_file(images[row["image"]])))
    items = _balanced(items, ISIC_LABELS, limit)
    return _stage(paths, items, dataset="isic2019", labels=ISIC_LABELS, progress=progress,
                  description="ISIC 2019 dermoscopy images, 8 diagnoses (local copy).",
                  provenance={"source": "ISIC 2019 challenge (BCN20000, HAM10000, MSK), CC BY-NC 4.0",
                              "ground_truth": gt.name})
