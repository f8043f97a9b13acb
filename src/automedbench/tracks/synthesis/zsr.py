"""Through-plane (z) ×s degradation and the interpolation baseline (shared by the demo builder,
the CT stagers and the baseline score).

Degradation (`slab_average`): thick-slice acquisition simulated as the MEAN of each run of
`s` consecutive thin slices (a box slice profile) followed by decimation: low-resolution
slice k covers reference slices s·k … s·k+s−1, so its centre lies at reference index
s·k + (s−1)/2. Reference volumes are first cropped to a multiple of s slices.

Grid: low-resolution affine = reference affine · [[1,0,0,0],[0,1,0,0],[0,0,s,(s−1)/2],[0,0,0,1]];
the agent gets the reference grid (shape + affine) in the public `target_grid.json`.

Baseline (`linear_baseline`): linear interpolation along z between low-resolution slice
centres (edge slices held constant) — "the task's baseline (interpolation)".
"""
from __future__ import annotations

import numpy as np


def crop_z(volume: np.ndarray, scale: int) -> np.ndarray:
    z = volume.shape[2] - volume.shape[2] % scale
    return volume[:, :, :z]


def slab_average(volume: np.ndarray, scale: int) -> np.ndarray:
    v = crop_z(volume, scale)
    x, y, z = v.shape
    return v.reshape(x, y, z // scale, scale).mean(axis=3)


def lowres_affine(affine: np.ndarray, scale: int) -> np.ndarray:
    m = np.eye(4)
    m[2, 2] = scale
    m[2, 3] = (scale - 1) / 2.0
    return np.asarray(affine, dtype=np.float64) @ m


def linear_baseline(low: np.ndarray, scale: int, n_out: int) -> np.ndarray:
    """Linear interpolation along z onto the reference grid (n_out slices)."""
    centres = np.arange(low.shape[2]) * scale + (scale - 1) / 2.0
    pos = np.clip(np.arange(n_out, dtype=np.float64), centres[0], centres[-1])
    k = np.clip(np.searchsorted(centres, pos, side="right") - 1, 0, len(centres) - 2) if len(centres) > 1 \
        else np.zeros(n_out, dtype=int)
    if len(centres) == 1:
        return np.repeat(low, n_out, axis=2)
    t = (pos - centres[k]) / scale
    return low[:, :, k] * (1 - t) + low[:, :, k + 1] * t
