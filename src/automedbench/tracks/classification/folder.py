"""Classification's folder layouts (docs/your-task.md section 2, "Classification"), in detection order:

folders      DIR/images/<case_id>.<ext> + DIR/labels.csv (header `case_id,label`)
imagefolder  DIR/<label>/<case_id>.<ext>, one folder per label (torchvision's ImageFolder)

ext = that of track_options.image_file (which follows the task's input_files: image.jpg -> *.jpg;
docs/your-task.md section 3); each image -> public/<case_id>/<image_file>,
its label -> private/<case_id>/label.txt. With `examples_per_class: N` in track_options the first
N images of each label (by name) become labelled examples instead of cases:
public/_examples/<file> + public/_examples/labels.csv (file,label) — what the few-shot
reference method reads (docs/your-task.md section 5).

An image without a row is skipped ("no label"), a row without an image too ("no image"); a
label that is not one of the task's `labels` is refused (load_reference says so); in an
ImageFolder, a folder that is not one of the labels is refused, naming it and the fix.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from ...data import DatasetError
from ...data.from_folder import GENERIC_LAYOUT, FolderCases, FolderLayout, StagingFolder, read_case_table
from ..option_checks import IMAGE_SUFFIXES, wrong_image_type
from .options import REFERENCE_FILE

EXAMPLES = "_examples"


def _ext(options: Any) -> str:
    return Path(options.image_file).suffix


def _write(found: dict[str, tuple[Path, str]], skipped: dict[str, str], dest: StagingFolder,
           options: Any) -> FolderCases:
    """found: case_id -> (image, label). Examples first (examples_per_class), then the cases."""
    out = FolderCases(skipped=skipped)
    examples: list[tuple[str, str]] = []
    taken: dict[str, int] = {}
    for cid, (image, label) in sorted(found.items()):
        if taken.get(label, 0) < options.examples_per_class:
            taken[label] = taken.get(label, 0) + 1
            name = f"{cid}{_ext(options)}"
            dest.place(image, dest.public / EXAMPLES / name)
            examples.append((name, label))
            continue
        dest.place(image, dest.public / cid / options.image_file)
        (dest.private / cid).mkdir(parents=True, exist_ok=True)
        (dest.private / cid / REFERENCE_FILE).write_text(label + "\n", encoding="utf-8")
        out.cases.append({"case_id": cid})
    if examples:
        with open(dest.public / EXAMPLES / "labels.csv", "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows([("file", "label"), *examples])
        out.facts["examples"] = f"public/{EXAMPLES}/ (labels.csv: file,label), {options.examples_per_class} per label"
        out.notes.append(f"{len(examples)} image(s) became labelled examples in public/{EXAMPLES}/ "
                         f"(examples_per_class: {options.examples_per_class}), not cases")
    return out


def _folders(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    ext = _ext(options)
    images = {p.name[: -len(ext)]: p for p in sorted((src / "images").glob(f"*{ext}"))} \
        if (src / "images").is_dir() else {}
    if not images:
        others = _other_images((src / "images").glob("*") if (src / "images").is_dir() else [], ext)
        if others:
            raise DatasetError("layout 'folders': " + wrong_image_type(others, options, f"{src}/images/"))
        raise DatasetError(f"layout 'folders': {src}/images/ holds no <case_id>{ext} file; fix: put the images "
                           f"there (or use one folder per label: --layout imagefolder)")
    if not (src / "labels.csv").is_file():
        raise DatasetError(f"layout 'folders': {src}/labels.csv is missing; fix: write it with the header "
                           "`case_id,label` and one row per image")
    table = read_case_table(src / "labels.csv")
    found: dict[str, tuple[Path, str]] = {}
    skipped: dict[str, str] = {}
    for cid in sorted(set(images) | set(table)):
        label = table.get(cid, {}).get("label")
        if cid not in images:
            skipped[cid] = "no image"
        elif not label:
            skipped[cid] = "no label"
        else:
            found[cid] = (images[cid], label)
    return _write(found, skipped, dest, options)


def _other_images(files: Any, ext: str) -> list[Path]:
    """Images of another type than the task's (`ext`): what a folder holds instead."""
    return [f for f in files if f.suffix.lower() in IMAGE_SUFFIXES and f.suffix.lower() != ext.lower()]


def _class_folders(src: Path, ext: str) -> dict[str, list[Path]]:
    return {d.name: sorted(d.glob(f"*{ext}")) for d in sorted(src.iterdir())
            if d.is_dir() and not d.name.startswith((".", "_")) and any(d.glob(f"*{ext}"))}


def _imagefolder(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    ext = _ext(options)
    classes = _class_folders(src, ext)
    if not classes:
        others = _other_images((f for d in src.iterdir() if d.is_dir() for f in d.iterdir()), ext)
        if others:
            raise DatasetError("layout 'imagefolder': " + wrong_image_type(others, options, f"{src}"))
        raise DatasetError(f"layout 'imagefolder': no folder of {src} holds a *{ext} image; fix: one folder per "
                           f"label ({', '.join(options.labels)}) with the images inside")
    strangers = sorted(set(classes) - set(options.labels))
    if strangers:
        raise DatasetError(f"layout 'imagefolder': folder(s) {', '.join(strangers)} are not among the task's labels "
                           f"{options.labels}; fix: rename them to a label, move them out, or add them to "
                           "track_options.labels")
    found: dict[str, tuple[Path, str]] = {}
    for label, files in classes.items():
        for f in files:
            cid = f.name[: -len(ext)]
            if cid in found:
                raise DatasetError(f"layout 'imagefolder': {cid}{ext} is in both {found[cid][1]}/ and {label}/; "
                                   "fix: rename one (the file name is the case id)")
            found[cid] = (f, label)
    return _write(found, {}, dest, options)


def _looks_like_imagefolder(src: Path) -> bool:
    subdirs = [d for d in src.iterdir() if d.is_dir() and not d.name.startswith((".", "_"))]
    return bool(subdirs) and not (src / "labels.csv").exists() and all(
        any(f.is_file() for f in d.iterdir()) and not any(f.is_dir() for f in d.iterdir()) for d in subdirs)


LAYOUTS = [
    FolderLayout("folders", "images/<case>.png + labels.csv (case_id,label)",
                 lambda src: (src / "images").is_dir() or (src / "labels.csv").is_file(), _folders),
    FolderLayout("imagefolder", "<label>/<case>.png, one folder per label", _looks_like_imagefolder, _imagefolder),
    GENERIC_LAYOUT,
]
