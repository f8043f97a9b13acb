"""Stagers for the official detection datasets, from a LOCAL copy of each release (never
redistributed, never downloaded here). Each converts the source's annotation format into our
layout: public/<case_id>/image.png and private/<case_id>/boxes.json
{"width", "height", "boxes": [{"class", "x1", "y1", "x2", "y2"}]} in pixel corner coordinates.

Layouts expected under `source` (as the official releases unpack):
  VinDr-CXR (PhysioNet 1.0.0)  test/<image_id>.dicom + annotations/annotations_test.csv
                               (image_id, class_name, x_min, y_min, x_max, y_max; the test
                               labels are the radiologists' consensus). split="train" reads
                               train/ + annotations_train.csv. "No finding" rows = negative
                               image. DICOM → 8-bit PNG (MONOCHROME1 inverted, 0.5-99.5 %
                               window); the pixel grid is unchanged, so boxes are too.
  BCCD (Shenggan/BCCD_Dataset) BCCD/Annotations/*.xml (Pascal VOC), BCCD/JPEGImages/*.jpg,
                               BCCD/ImageSets/Main/<split>.txt; VOC boxes are 1-based
                               inclusive: (xmin-1, ymin-1, xmax, ymax) are the corners.
  DENTEX (MICCAI 2023)         a COCO JSON (images, annotations, categories_3 = diagnosis and
                               category_id_3 per box for the quadrant-enumeration-disease
                               set, or plain categories/category_id) + the xrays/*.png beside it.
  GRAZPEDWRI-DX                images/*.png (16-bit kept as is) + labels/*.txt in YOLO format
                               (class cx cy w h, normalised), classes in the published order.
Boxes are clipped to the image; a box that is empty after clipping is dropped and counted in
the manifest (`dropped_boxes`).
"""
from __future__ import annotations

import csv
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from ....data import DatasetError, DatasetPaths, write_manifest

Progress = Callable[[int, int, str], None]

VINDR_CLASSES = ("Aortic enlargement", "Atelectasis", "Calcification", "Cardiomegaly",
                 "Consolidation", "ILD", "Infiltration", "Lung Opacity", "Nodule/Mass",
                 "Other lesion", "Pleural effusion", "Pleural thickening", "Pneumothorax",
                 "Pulmonary fibrosis")
BCCD_CLASSES = ("RBC", "WBC", "Platelets")
DENTEX_CLASSES = ("Impacted", "Caries", "Periapical Lesion", "Deep Caries")
GRAZPEDWRI_CLASSES = ("boneanomaly", "bonelesion", "foreignbody", "fracture", "metal",
                      "periostealreaction", "pronatorsign", "softtissue", "text")


class _Item:
    """One image to stage: where its pixels come from and its boxes (corner coordinates)."""

    def __init__(self, case_id: str, image: Path, boxes: list[dict[str, Any]],
                 size: tuple[int, int] | None = None):
        self.case_id, self.image, self.boxes, self.size = case_id, image, boxes, size


def _source_dir(source: str | Path | None, name: str) -> Path:
    if not source:
        raise DatasetError(f"{name}: pass source=<path to your local copy of the official release>")
    root = Path(source).expanduser()
    if not root.is_dir():
        raise DatasetError(f"{name}: source {root} is not a folder")
    return root


def _save_png(src: Path, dest: Path) -> tuple[int, int]:
    """Write `src` as dest (PNG); returns (width, height). PNGs are copied byte for byte."""
    from PIL import Image
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.suffix.lower() in (".dicom", ".dcm"):
        import pydicom

        ds = pydicom.dcmread(str(src))
        arr = np.asarray(ds.pixel_array, dtype=np.float32)
        if str(getattr(ds, "PhotometricInterpretation", "")) == "MONOCHROME1":
            arr = arr.max() - arr
        lo, hi = np.percentile(arr, [0.5, 99.5])
        arr = np.clip((arr - lo) / max(float(hi - lo), 1e-6), 0, 1)
        Image.fromarray(np.round(arr * 255).astype(np.uint8)).save(dest)
        return int(arr.shape[1]), int(arr.shape[0])
    with Image.open(src) as im:
        size = im.size
        if src.suffix.lower() == ".png":
            shutil.copyfile(src, dest)
        else:
            im.save(dest)
    return size


def _clip(boxes: list[dict[str, Any]], width: int, height: int) -> tuple[list[dict[str, Any]], int]:
    kept, dropped = [], 0
    for b in boxes:
        x1, x2 = max(0.0, float(b["x1"])), min(float(width), float(b["x2"]))
        y1, y2 = max(0.0, float(b["y1"])), min(float(height), float(b["y2"]))
        if x2 <= x1 or y2 <= y1:
            dropped += 1
            continue
        kept.append({"class": b["class"], "x1": x1, "y1": y1, "x2": x2, "y2": y2})
    return kept, dropped


def _stage(paths: DatasetPaths, items: list[_Item], *, dataset: str, classes: tuple[str, ...],
           description: str, provenance: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
    if not items:
        raise DatasetError(f"{dataset}: no images found in the source (check the layout in "
                           "docs/tracks/detection.md)")
    cases = []
    for i, item in enumerate(items):
        width, height = _save_png(item.image, paths.public / item.case_id / "image.png")
        boxes, dropped = _clip(item.boxes, width, height)
        ref = {"width": width, "height": height, "boxes": boxes}
        (paths.private / item.case_id).mkdir(parents=True, exist_ok=True)
        (paths.private / item.case_id / "boxes.json").write_text(json.dumps(ref) + "\n")
        cases.append({"case_id": item.case_id, "width": width, "height": height,
                      "positive": bool(boxes), "n_boxes": len(boxes), "boxes": boxes,
                      "dropped_boxes": dropped, "source_file": item.image.name})
        if progress:
            progress(i + 1, len(items), item.case_id)
    return write_manifest(paths, dataset=dataset, description=description, cases=cases,
                          provenance={**provenance, "classes": list(classes),
                                      "inputs": ["image.png"], "references": ["boxes.json"]})


def _limit(items: Iterator[_Item], limit: int | None) -> list[_Item]:
    out: list[_Item] = []
    for item in items:
        if limit is not None and len(out) >= int(limit):
            break
        out.append(item)
    return out


# ---- VinDr-CXR --------------------------------------------------------------------------------
def _vindr_items(root: Path, split: str) -> Iterator[_Item]:
    ann = root / "annotations" / f"annotations_{split}.csv"
    if not ann.is_file():
        raise DatasetError(f"vindr-cxr: {ann} not found")
    per_image: dict[str, list[dict[str, Any]]] = {}
    with open(ann, newline="") as fh:
        for row in csv.DictReader(fh):
            boxes = per_image.setdefault(row["image_id"], [])
            if row["class_name"] in VINDR_CLASSES and row.get("x_min"):
                boxes.append({"class": row["class_name"], "x1": row["x_min"], "y1": row["y_min"],
                              "x2": row["x_max"], "y2": row["y_max"]})
    for image_id in sorted(per_image):
        img = next((root / split / f"{image_id}{ext}" for ext in (".dicom", ".dcm", ".png")
                    if (root / split / f"{image_id}{ext}").is_file()), None)
        if img is None:
            raise DatasetError(f"vindr-cxr: image {image_id} listed in {ann.name} is missing")
        yield _Item(image_id, img, per_image[image_id])


def stage_vindr_cxr(paths: DatasetPaths, source: str | Path | None = None, split: str = "test",
                    limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "vindr-cxr")
    return _stage(paths, _limit(_vindr_items(root, split), limit), dataset="vindr-cxr",
                  classes=VINDR_CLASSES, progress=progress,
                  description="VinDr-CXR chest radiographs, 14 local findings (staged from a local copy).",
                  provenance={"source": "VinDr-CXR 1.0.0 (PhysioNet), Nguyen et al., Sci Data 2022",
                              "split": split, "licence": "PhysioNet credentialed; not redistributed"})


# ---- BCCD ---------------------------------------------------------------------------------------
def _bccd_items(root: Path, split: str) -> Iterator[_Item]:
    base = root / "BCCD" if (root / "BCCD").is_dir() else root
    listing = base / "ImageSets" / "Main" / f"{split}.txt"
    if listing.is_file():
        stems = [s.strip() for s in listing.read_text().split() if s.strip()]
    else:
        stems = sorted(p.stem for p in (base / "Annotations").glob("*.xml"))
    for stem in stems:
        xml = base / "Annotations" / f"{stem}.xml"
        if not xml.is_file():
            raise DatasetError(f"bccd: annotation {xml} is missing")
        boxes = []
        for obj in ET.parse(xml).getroot().iter("object"):
            bb = obj.find("bndbox")
            name = (obj.findtext("name") or "").strip()
            if bb is None or name not in BCCD_CLASSES:
                continue
            v = {k: float(bb.findtext(k) or "nan") for k in ("xmin", "ymin", "xmax", "ymax")}
            boxes.append({"class": name, "x1": v["xmin"] - 1, "y1": v["ymin"] - 1,
                          "x2": v["xmax"], "y2": v["ymax"]})
        yield _Item(stem, base / "JPEGImages" / f"{stem}.jpg", boxes)


def stage_bccd(paths: DatasetPaths, source: str | Path | None = None, split: str = "test",
               limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "bccd")
    return _stage(paths, _limit(_bccd_items(root, split), limit), dataset="bccd",
                  classes=BCCD_CLASSES, progress=progress,
                  description="BCCD blood-cell smear detection: RBC, WBC, Platelets (staged from a local copy).",
                  provenance={"source": "BCCD_Dataset (github.com/Shenggan/BCCD_Dataset), MIT",
                              "split": split})


# ---- DENTEX -------------------------------------------------------------------------------------
def _dentex_items(root: Path) -> Iterator[_Item]:
    candidates = sorted(root.rglob("*.json"))
    for ann in candidates:
        try:
            data = json.loads(ann.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict) or "images" not in data or "annotations" not in data:
            continue
        cat_key, id_key = ("categories_3", "category_id_3") if "categories_3" in data else ("categories", "category_id")
        names = {c["id"]: c["name"] for c in data[cat_key]}
        by_image: dict[int, list[dict[str, Any]]] = {im["id"]: [] for im in data["images"]}
        for a in data["annotations"]:
            name = names.get(a.get(id_key))
            if name in DENTEX_CLASSES and a["image_id"] in by_image:
                x, y, w, h = (float(v) for v in a["bbox"])
                by_image[a["image_id"]].append({"class": name, "x1": x, "y1": y, "x2": x + w, "y2": y + h})
        # file name -> its first path in sorted order under the JSON's folder (one walk, not one per image)
        found: dict[str, Path] = {}
        for path in sorted(ann.parent.rglob("*")):
            found.setdefault(path.name, path)
        for im in sorted(data["images"], key=lambda im: im["file_name"]):
            hit = found.get(Path(im["file_name"]).name)
            if hit is None:
                raise DatasetError(f"dentex: image {im['file_name']} listed in {ann.name} is missing")
            yield _Item(Path(im["file_name"]).stem, hit, by_image[im["id"]])
        return
    raise DatasetError(f"dentex: no COCO JSON (images + annotations) under {root}")


def stage_dentex(paths: DatasetPaths, source: str | Path | None = None, split: str = "",
                 limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "dentex")
    if split:
        root = root / split
    return _stage(paths, _limit(_dentex_items(root), limit), dataset="dentex",
                  classes=DENTEX_CLASSES, progress=progress,
                  description="DENTEX panoramic dental X-rays: 4 diagnoses (staged from a local copy).",
                  provenance={"source": "DENTEX challenge 2023, Hamamci et al.", "split": split or "(source root)"})


# ---- GRAZPEDWRI-DX ------------------------------------------------------------------------------
def _graz_items(root: Path) -> Iterator[_Item]:
    from PIL import Image
    labels = {p.stem: p for p in root.rglob("*.txt") if p.parent.name == "labels"}
    images = sorted(p for p in root.rglob("*.png") if p.stem in labels)
    for img in images:
        with Image.open(img) as im:
            width, height = im.size
        boxes = []
        for line in labels[img.stem].read_text().splitlines():
            parts = line.split()
            if len(parts) != 5:
                continue
            k, cx, cy, w, h = int(parts[0]), *(float(v) for v in parts[1:])
            if not 0 <= k < len(GRAZPEDWRI_CLASSES):
                raise DatasetError(f"grazpedwri-dx: {img.stem}: class index {k} out of range")
            boxes.append({"class": GRAZPEDWRI_CLASSES[k], "x1": (cx - w / 2) * width,
                          "y1": (cy - h / 2) * height, "x2": (cx + w / 2) * width,
                          "y2": (cy + h / 2) * height})
        yield _Item(img.stem, img, boxes)


def stage_grazpedwri_dx(paths: DatasetPaths, source: str | Path | None = None, split: str = "",
                        limit: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    root = _source_dir(source, "grazpedwri-dx")
    if split:
        root = root / split
    return _stage(paths, _limit(_graz_items(root), limit), dataset="grazpedwri-dx",
                  classes=GRAZPEDWRI_CLASSES, progress=progress,
                  description="GRAZPEDWRI-DX paediatric wrist radiographs, 9 classes (staged from a local copy).",
                  provenance={"source": "GRAZPEDWRI-DX, Nagy et al., Sci Data 2022 (CC BY 4.0)",
                              "split": split or "(all)"})
