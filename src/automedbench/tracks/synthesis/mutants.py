"""Synthesis's broken outputs (docs/judge.md "Experiments"): a volume on the wrong grid, values
out of the HU range, a flat volume."""
from __future__ import annotations

import numpy as np

from ..mutants import Apply, Mutant, UnitFiles, VoxelEdit, edit_volume, every_second_slice
from .options import SynthesisOptions


def _edit(options: SynthesisOptions, fn: VoxelEdit | None, grid: bool = False) -> Apply:
    def apply(files: UnitFiles) -> bool:
        p = files.get(options.output_file)
        if p is None:
            return False
        return every_second_slice(p) if grid else fn is not None and edit_volume(p, fn)
    return apply


def synthesis_mutants(options: SynthesisOptions) -> list[Mutant]:
    return [
        Mutant("wrong_grid", "every second slice only, z spacing doubled: not the target grid",
               _edit(options, None, grid=True), aspect="form"),
        Mutant("plus_1000", "every value 1000 HU higher", _edit(options, lambda a: a + 1000)),
        Mutant("constant", "a flat volume (every voxel the mean)",
               _edit(options, lambda a: None if float(np.ptp(a)) == 0 else np.full_like(a, np.mean(a)))),
    ]
