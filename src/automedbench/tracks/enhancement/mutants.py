"""Enhancement's broken outputs (docs/judge.md "Experiments"): images a look at one output
should catch -- values shifted out of the input's units, a kept [0, 1] normalisation, a flat image
(content); the image on another grid (form)."""
from __future__ import annotations

import numpy as np

from ..mutants import Apply, Mutant, UnitFiles, VoxelEdit, edit_array
from .options import EnhancementOptions


def _edit(options: EnhancementOptions, fn: VoxelEdit) -> Apply:
    def apply(files: UnitFiles) -> bool:
        p = files.get(options.output_file)
        return p is not None and edit_array(p, fn)
    return apply


def _unit_range(a: np.ndarray) -> np.ndarray | None:
    lo, hi = float(np.min(a)), float(np.max(a))
    return None if hi <= lo else (a - lo) / (hi - lo)


def _constant(a: np.ndarray) -> np.ndarray | None:
    return None if float(np.ptp(a)) == 0 else np.full_like(a, np.mean(a))


def _half_grid(a: np.ndarray) -> np.ndarray | None:
    return np.ascontiguousarray(a[..., ::2, ::2]) if a.ndim >= 2 and min(a.shape[-2:]) > 1 else None


def enhancement_mutants(options: EnhancementOptions) -> list[Mutant]:
    return [
        Mutant("plus_1000", "every value 1000 higher (an HU offset applied twice)", _edit(options, lambda a: a + 1000)),
        Mutant("unit_range", "scaled to [0, 1]: a normalisation kept, not in the input's units",
               _edit(options, _unit_range)),
        Mutant("constant", "a flat image (every pixel the mean)", _edit(options, _constant)),
        Mutant("wrong_grid", "every second row and column only: not the output's grid",
               _edit(options, _half_grid), aspect="form"),
    ]
