"""Classification's folder layouts (docs/your-task.md section 2, "Classification"), in detection order:

folders             DIR/images/<case_id>.<ext> + DIR/labels.csv (header `case_id,label`)
imagefolder-splits  DIR/train/<label>/<case_id>.<ext> + DIR/test/<label>/... (+ val/): a release
                    with splits; the cases come from test/ (or the split --split names: val/),
                    the labelled examples (examples_per_class per label) from train/
imagefolder         DIR/<label>/<case_id>.<ext>, one folder per label (torchvision's ImageFolder)

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
EXAMPLE_SPLITS = ("train", "training")                       # a release's labelled examples
VAL_NAMES = ("val", "valid", "validation")
CASE_SPLITS = ("test", "testing", *VAL_NAMES)                # the cases: the first present, or --split


def _ext(options: Any) -> str:
    return Path(options.image_file).suffix


def _write(found: dict[str, tuple[Path, str]], skipped: dict[str, str], dest: StagingFolder,
           options: Any, labelled: dict[str, tuple[Path, str]] | None = None) -> FolderCases:
    """found: case_id -> (image, label). Examples first (examples_per_class), then the cases.
    The examples come from `labelled` when given (a release's train/ split: every image of
    `found` is then a case), else from `found` itself."""
    out = FolderCases(skipped=skipped)
    examples: list[tuple[str, str]] = []
    taken: dict[str, int] = {}
    for cid, (image, label) in sorted((labelled if labelled is not None else found).items()):
        if taken.get(label, 0) < options.examples_per_class:
            taken[label] = taken.get(label, 0) + 1
            name = f"{cid}{_ext(options)}"
            dest.place(image, dest.public / EXAMPLES / name)
            examples.append((name, label))
    for cid, (image, label) in sorted(found.items()):
        if labelled is None and (f"{cid}{_ext(options)}", label) in examples:
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


def _labelled(src: Path, options: Any, layout: str) -> dict[str, tuple[Path, str]]:
    """case_id -> (image, label) of a folder holding one folder per label."""
    ext = _ext(options)
    classes = _class_folders(src, ext)
    if not classes:
        others = _other_images((f for d in src.iterdir() if d.is_dir() for f in d.iterdir()), ext)
        if others:
            raise DatasetError(f"layout {layout!r}: " + wrong_image_type(others, options, f"{src}"))
        raise DatasetError(f"layout {layout!r}: no folder of {src} holds a *{ext} image; fix: one folder per "
                           f"label ({', '.join(options.labels)}) with the images inside")
    strangers = sorted(set(classes) - set(options.labels))
    if strangers:
        raise DatasetError(f"layout {layout!r}: folder(s) {', '.join(strangers)} of {src} are not among the task's "
                           f"labels {options.labels}; fix: rename them to a label, move them out, or add them to "
                           "track_options.labels")
    found: dict[str, tuple[Path, str]] = {}
    for label, files in classes.items():
        for f in files:
            cid = f.name[: -len(ext)]
            if cid in found:
                raise DatasetError(f"layout {layout!r}: {cid}{ext} is in both {found[cid][1]}/ and {label}/ of {src}; "
                                   "fix: rename one (the file name is the case id)")
            found[cid] = (f, label)
    return found


def _imagefolder(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    return _write(_labelled(src, options, "imagefolder"), {}, dest, options)


def _split_folders(src: Path) -> dict[str, Path]:
    """The release's split folders by their lower-case name (train/, val/, test/, ...)."""
    return {d.name.lower(): d for d in sorted(src.iterdir())
            if d.is_dir() and d.name.lower() in (*EXAMPLE_SPLITS, *CASE_SPLITS)}


def _looks_split(src: Path) -> bool:
    return any(sub.is_dir() for d in _split_folders(src).values() for sub in d.iterdir())


def _imagefolder_splits(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    """train/<label>/ -> labelled examples (examples_per_class per label), the chosen split's
    <label>/ -> the cases (docs/your-task.md section 2, "Classification")."""
    splits = _split_folders(src)
    chosen = (dest.split or "").lower() or next((n for n in CASE_SPLITS if n in splits), "")
    if chosen in VAL_NAMES:   # --split val finds valid/ or validation/ too
        chosen = next((n for n in VAL_NAMES if n in splits), chosen)
    if chosen in EXAMPLE_SPLITS:
        raise DatasetError(f"layout 'imagefolder-splits': --split {dest.split}: {chosen}/ holds the labelled "
                           "examples, not the cases; fix: --split test or --split val")
    if chosen not in splits:
        have = ", ".join(f"{n}/" for n in splits) or "no split folder"
        raise DatasetError(f"layout 'imagefolder-splits': {src}/{chosen or 'test'}/ is missing (it has {have}); "
                           f"fix: put the cases there, one folder per label, or choose another with --split NAME")
    cases = _labelled(splits[chosen], options, "imagefolder-splits")
    train = next((splits[n] for n in EXAMPLE_SPLITS if n in splits), None)
    examples = _labelled(train, options, "imagefolder-splits") if train and options.examples_per_class else {}
    out = _write(cases, {}, dest, options, labelled=examples)
    out.facts["split"] = splits[chosen].name
    if train is not None and not options.examples_per_class:
        out.notes.append(f"{train.name}/: not staged (set `examples_per_class: N` in track_options to take N "
                         "labelled examples per label from it, for the methods that need them)")
    for folder in splits.values():
        if folder not in (train, splits[chosen]):
            out.notes.append(f"{folder.name}/: not staged (--split {folder.name} stages it as the cases)")
    return out


def _looks_like_imagefolder(src: Path) -> bool:
    subdirs = [d for d in src.iterdir() if d.is_dir() and not d.name.startswith((".", "_"))]
    return bool(subdirs) and not (src / "labels.csv").exists() and all(
        any(f.is_file() for f in d.iterdir()) and not any(f.is_dir() for f in d.iterdir()) for d in subdirs)


LAYOUTS = [
    FolderLayout("folders", "images/<case>.png + labels.csv (case_id,label)",
                 lambda src: (src / "images").is_dir() or (src / "labels.csv").is_file(), _folders),
    FolderLayout("imagefolder-splits", "train/<label>/<case>.png + test/<label>/<case>.png (+ val/)",
                 _looks_split, _imagefolder_splits,
                 splits="the cases' folder: test (default; else val) or val, valid, validation"),
    FolderLayout("imagefolder", "<label>/<case>.png, one folder per label", _looks_like_imagefolder, _imagefolder),
    GENERIC_LAYOUT,
]
