"""Strict, bounded reading of an agent's .npy output (never raises; one-line reasons)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.lib import format as npformat

_MAGIC = b"\x93NUMPY"


def read_float_npy(path: Path, shape: tuple[int, ...]) -> tuple[np.ndarray | None, str]:
    """(float64 array of exactly `shape`, "") or (None, reason).

    Refuses before loading: files larger than the biggest valid encoding of `shape`
    (float64 + a header), non-.npy bytes, pickled objects; after loading: wrong shape,
    non-float dtype, NaN or Inf."""
    name = path.name
    try:
        size = path.stat().st_size
        limit = int(np.prod(shape)) * 8 + 64 * 1024
        if size > limit:
            return None, f"{name}: file is {size} bytes, more than any float array of shape {shape} needs"
        with open(path, "rb") as fh:
            head = fh.read(6)
            if head != _MAGIC:
                return None, f"{name}: not a .npy file (bad magic bytes)"
            # the header first: refuse a wrong shape/dtype before np.load allocates what it claims
            fh.seek(0)
            version = npformat.read_magic(fh)
            read_header = npformat.read_array_header_1_0 if version == (1, 0) else npformat.read_array_header_2_0
            head_shape, _, head_dtype = read_header(fh)
            if head_dtype.kind != "f":
                return None, f"{name}: dtype {head_dtype} is not floating point (float32/float64 required)"
            if tuple(head_shape) != tuple(shape):
                return None, f"{name}: wrong shape {tuple(head_shape)}, expected {tuple(shape)}"
            fh.seek(0)
            arr = np.load(fh, allow_pickle=False)
    except ValueError as exc:
        return None, f"{name}: unreadable .npy ({str(exc).splitlines()[0][:120]})"
    except Exception as exc:  # np.load raises many types for corrupt headers
        return None, f"{name}: unreadable .npy ({type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''})"
    if not isinstance(arr, np.ndarray):
        return None, f"{name}: not a single array"
    if arr.dtype.kind != "f":
        return None, f"{name}: dtype {arr.dtype} is not floating point (float32/float64 required)"
    if arr.shape != tuple(shape):
        return None, f"{name}: wrong shape {arr.shape}, expected {tuple(shape)}"
    if not np.isfinite(arr).all():
        return None, f"{name}: contains NaN or Inf values"
    return arr.astype(np.float64, copy=False), ""
