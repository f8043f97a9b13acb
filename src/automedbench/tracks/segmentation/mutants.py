"""Segmentation's broken outputs (docs/judge.md "Experiments"): what a look at one predicted
mask should catch. Masks keep their header, affine and data type and only the voxels change,
except `wrong_grid`, the one form mutant (another grid: a look at the shape or affine sees it)."""
from __future__ import annotations

import shutil

import numpy as np

from ..mutants import Apply, Mutant, UnitFiles, VoxelEdit, edit_volume, every_second_slice
from .options import SegmentationOptions


def _all(files: UnitFiles, fn: VoxelEdit) -> bool:
    changed = False
    for p in files.values():
        changed = edit_volume(p, fn) or changed
    return changed


def _empty(a: np.ndarray) -> np.ndarray | None:
    return np.zeros_like(a) if a.any() else None


def _flipped_z(a: np.ndarray) -> np.ndarray | None:
    flipped = np.ascontiguousarray(a[:, :, ::-1]) if a.ndim >= 3 else np.ascontiguousarray(a[::-1])
    return None if np.array_equal(flipped, a) else flipped


def _lesion_is_organ(options: SegmentationOptions) -> Apply:
    def apply(files: UnitFiles) -> bool:
        organ, lesion = files.get(options.organ_file), files.get(options.lesion_file)
        if organ is None or lesion is None or organ.read_bytes() == lesion.read_bytes():
            return False
        shutil.copyfile(organ, lesion)
        return True
    return apply


def _whole(value: int) -> VoxelEdit:
    return lambda a: None if (a == value).all() else np.full_like(a, value)


def _shifted(labels: list[int]) -> VoxelEdit:
    """Each label value replaced by the next one (a label table read off by one)."""
    def fn(a: np.ndarray) -> np.ndarray | None:
        out = a.copy()
        for i, v in enumerate(labels):
            out[a == v] = labels[(i + 1) % len(labels)]
        return None if np.array_equal(out, a) else out
    return fn


def segmentation_mutants(options: SegmentationOptions) -> list[Mutant]:
    # content mutants first: a look's replays stop at the first content kill (lifecycle/experiments.py)
    # form: whether any voxel is labelled at all (docs/judge.md "Verdicts": emptiness is form)
    empty = Mutant("empty", "every mask empty (all 0)", lambda f: _all(f, _empty), aspect="form")
    common = [
        Mutant("flipped_z", "the voxel array reversed along z with the affine kept (an orientation error)",
               lambda f: _all(f, _flipped_z)),
        Mutant("wrong_grid", "every second slice only, z spacing doubled: not the input's grid",
               lambda f: any([every_second_slice(p) for p in f.values()]), aspect="form"),
    ]
    if options.variant == "multiclass":
        labels = sorted(options.labels)
        return [*common,
                Mutant("one_label", f"every voxel labelled {labels[0]}", lambda f: _all(f, _whole(labels[0]))),
                Mutant("labels_shifted", "every label value replaced by the next one", lambda f: _all(f, _shifted(labels))),
                empty]
    return [*common,
            Mutant("whole_foreground", "every voxel foreground (all 1)", lambda f: _all(f, _whole(1))),
            Mutant("lesion_is_organ", f"the {options.lesion_name} mask is a copy of the {options.organ_name} mask",
                   _lesion_is_organ(options)),
            empty]
