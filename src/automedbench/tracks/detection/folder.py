"""Detection's folder layouts (docs/your-task.md section 2, "Detection"), in detection order:

coco  DIR/annotations.json (COCO: images, annotations with bbox [x, y, w, h], categories)
      + the images at DIR/images/<file_name> or DIR/<file_name>; or, as COCO and its exporters
      ship splits, DIR/annotations/instances_<split>.json + DIR/images/<split>/, DIR/<split>/
      (val2017/) or DIR/images/; --split picks the file (default: the only one, else val)
yolo  DIR/images/<case>.png + DIR/labels/<case>.txt (rows `class cx cy w h`, 0-1 of the image),
      class ids indexing DIR/classes.txt (one name a line) or else the task's `classes`

Each image -> public/<case_id>/<image_file> (case_id = the file name without extension), its
boxes -> private/<case_id>/boxes.json {width, height, boxes: [{class, x1, y1, x2, y2}]} in pixel
corner coordinates. An image without boxes is a case with none (a negative, as COCO and YOLO
mean it). A category the task does not list is refused with the `classes:` line to write.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...data import DatasetError
from ...data.from_folder import GENERIC_LAYOUT, FolderCases, FolderLayout, StagingFolder
from ..option_checks import IMAGE_SUFFIXES, wrong_image_type

REFERENCE_FILE = "boxes.json"   # as track.py reads it
COCO_FILES = ("annotations.json", "_annotations.coco.json", "instances.json")


def _coco_file(src: Path) -> Path | None:
    return next((src / n for n in COCO_FILES if (src / n).is_file()), None)


def _instances(src: Path) -> dict[str, Path]:
    """split -> annotations/instances_<split>.json, as COCO and its exporters write them."""
    folder = src / "annotations"
    return {p.name[len("instances_"):-len(".json")]: p for p in sorted(folder.glob("instances_*.json"))} \
        if folder.is_dir() else {}


def _pick_coco(src: Path, split: str | None) -> tuple[Path, str | None]:
    """The COCO file to stage and its split: a top-level one (no split), else the
    annotations/instances_<split>.json --split names (val finds val2017), the only one, or val's."""
    top, files = _coco_file(src), _instances(src)
    if top is not None and split is None:
        return top, None
    names = ", ".join(f"instances_{n}.json" for n in files)
    if split is not None:
        hits = [split] if split in files else [n for n in files if n.startswith(split)]
        if len(hits) == 1:
            return files[hits[0]], hits[0]
        raise DatasetError(f"layout 'coco': {src}/annotations/instances_{split}.json is missing"
                           + (f" (it has {names}); fix: --split with one of them" if files else
                              "; fix: put the COCO JSON there, or drop --split for a top-level annotations.json"))
    if not files:
        raise DatasetError(f"layout 'coco': {src} has none of {', '.join(COCO_FILES)}, "
                           "annotations/instances_<split>.json; fix: put the COCO JSON there as annotations.json")
    chosen = next(iter(files)) if len(files) == 1 else next((n for n in files if n.startswith("val")), None)
    if chosen is None:
        raise DatasetError(f"layout 'coco': {src}/annotations/ holds {names} and none is val; fix: --split NAME "
                           "for the one to stage")
    return files[chosen], chosen


def _check_classes(names: set[str], options: Any, layout: str) -> None:
    known = {c.casefold() for c in options.classes}
    strangers = sorted(n for n in names if n.casefold() not in known)
    if strangers and not options.class_agnostic:
        raise DatasetError(f"layout {layout!r}: class(es) {', '.join(strangers)} are not the task's classes "
                           f"{options.classes}; fix: set `classes: [{', '.join(sorted(names))}]` in track_options")


def _write_case(dest: StagingFolder, cid: str, image: Path, width: int, height: int,
                boxes: list[dict[str, Any]], options: Any) -> dict[str, Any]:
    dest.place(image, dest.public / cid / options.image_file)
    (dest.private / cid).mkdir(parents=True, exist_ok=True)
    (dest.private / cid / REFERENCE_FILE).write_text(
        json.dumps({"width": width, "height": height, "boxes": boxes}, indent=1) + "\n", encoding="utf-8")
    return {"case_id": cid, "n_boxes": len(boxes)}


def _same_format(image: Path, options: Any, layout: str) -> None:
    if image.suffix.lower() != Path(options.image_file).suffix.lower():
        raise DatasetError(f"layout {layout!r}: " + wrong_image_type([image], options, image.name))


def _coco(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    path, split = _pick_coco(src, dest.split)
    folders = [src / "images" / split, src / split] if split else []
    try:
        coco = json.loads(path.read_text(encoding="utf-8"))
        cats = {int(c["id"]): str(c["name"]) for c in coco["categories"]}
        images = {int(i["id"]): i for i in coco["images"]}
        anns = coco.get("annotations") or []
    except (ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"layout 'coco': {path}: not a COCO file ({type(exc).__name__}: {exc}); fix: it needs "
                           "`images`, `annotations` and `categories`") from None
    _check_classes({cats[int(a["category_id"])] for a in anns if int(a["category_id"]) in cats}, options, "coco")
    boxes: dict[int, list[dict[str, Any]]] = {}
    for a in anns:
        x, y, w, h = (float(v) for v in a["bbox"])
        boxes.setdefault(int(a["image_id"]), []).append(
            {"class": cats[int(a["category_id"])], "x1": x, "y1": y, "x2": x + w, "y2": y + h})
    out = FolderCases()
    for iid, info in sorted(images.items(), key=lambda kv: str(kv[1]["file_name"])):
        rel = str(info["file_name"])
        image = next((p for p in (*(f / rel for f in folders), src / "images" / rel, src / rel) if p.is_file()), None)
        cid = Path(rel).stem
        if image is None:
            out.skipped[cid] = "no image file"
            continue
        _same_format(image, options, "coco")
        out.cases.append(_write_case(dest, cid, image, int(info["width"]), int(info["height"]),
                                     boxes.get(iid, []), options))
    out.facts = {"annotations": str(path.relative_to(src)), "categories": sorted(cats.values()),
                 **({"split": split} if split else {})}
    others = [f"annotations/{p.name}" for n, p in _instances(src).items() if n != split]
    if others:
        out.notes.append(f"{', '.join(others)}: not staged (--split NAME stages instances_NAME.json instead)")
    return out


def _yolo(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    from PIL import Image
    ext = Path(options.image_file).suffix
    images = sorted((src / "images").glob(f"*{ext}")) if (src / "images").is_dir() else []
    if not images:
        others = [f for f in (src / "images").glob("*") if f.suffix.lower() in IMAGE_SUFFIXES] \
            if (src / "images").is_dir() else []
        if others:
            raise DatasetError("layout 'yolo': " + wrong_image_type(others, options, f"{src}/images/"))
        raise DatasetError(f"layout 'yolo': {src}/images/ holds no *{ext} image; fix: put the images there, "
                           "their labels in labels/<case>.txt")
    names = ((src / "classes.txt").read_text(encoding="utf-8").split("\n") if (src / "classes.txt").is_file()
             else list(options.classes))
    names = [n.strip() for n in names if n.strip()]
    out = FolderCases()
    used: set[str] = set()
    for image in images:
        cid = image.name[: -len(ext)]
        width, height = Image.open(image).size
        rows = []
        label = src / "labels" / f"{cid}.txt"
        for n, line in enumerate(label.read_text().splitlines() if label.is_file() else [], 1):
            parts = line.split()
            if not parts:
                continue
            try:
                k, cx, cy, w, h = int(parts[0]), *(float(v) for v in parts[1:5])
                name = names[k]
            except (ValueError, IndexError):
                raise DatasetError(f"layout 'yolo': {label}:{n}: not `class cx cy w h` with a class id below "
                                   f"{len(names)}; fix: that line, or classes.txt") from None
            used.add(name)
            rows.append({"class": name, "x1": (cx - w / 2) * width, "y1": (cy - h / 2) * height,
                         "x2": (cx + w / 2) * width, "y2": (cy + h / 2) * height})
        out.cases.append(_write_case(dest, cid, image, width, height, rows, options))
    _check_classes(used, options, "yolo")
    out.facts = {"classes": names}
    return out


LAYOUTS = [
    FolderLayout("coco", "annotations.json or annotations/instances_<split>.json (COCO) + images/<file_name>",
                 lambda src: _coco_file(src) is not None or bool(_instances(src)), _coco,
                 splits="instances_<split>.json: the only one (default), else val; val finds val2017"),
    FolderLayout("yolo", "images/<case>.png + labels/<case>.txt (class cx cy w h) (+ classes.txt)",
                 lambda src: (src / "images").is_dir() and (src / "labels").is_dir(), _yolo),
    GENERIC_LAYOUT,
]
