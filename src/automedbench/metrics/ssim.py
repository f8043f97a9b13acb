"""SSIM and PSNR for image enhancement and synthesis. Pure functions, no I/O.

SSIM (Wang, Bovik, Sheikh & Simoncelli 2004, IEEE TIP 13(4)) exactly as scikit-image's
`skimage.metrics.structural_similarity` computes it with its defaults, for 2-D and 3-D
arrays: a uniform ``win_size``-wide window (7 → 7×7 or 7×7×7), K1 = 0.01, K2 = 0.03, sample
covariance (N/(N-1)), scipy's ``uniform_filter`` with ``reflect`` borders, the mean over the
map with ``(win_size-1)//2`` border voxels cropped, in float64. PSNR = 10·log10(R²/MSE) as
`skimage.metrics.peak_signal_noise_ratio`.

**Data range R**: the caller passes it; the tracks use the REFERENCE's range,
``R = reference.max() - reference.min()`` (`reference_data_range`), stated in every report.
It is never taken from the prediction (a prediction could then move its own goalposts).

Why a copy of scikit-image's formula rather than a call: the same operations in the same
order but in place, in per-thread scratch arrays reused across same-shaped cases (no
fresh 2 MiB temporaries, so no mmap/page-fault/munmap per map), and `ssim_psnr_many` scores many cases on
a thread pool — scipy's filters and numpy's array operations release the GIL, so two cores
give about twice the throughput. The numbers are bit-identical to scikit-image's
(tests/test_ssim_metric.py checks equality with ``==``; bench/score_enhancement.py too).
"""
from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Sequence

import numpy as np

K1, K2 = 0.01, 0.03
WIN_SIZE = 7

# Per-thread scratch arrays, reused while the shape stays the same. Why: each float64 map of
# a 512×512 slice is 2 MiB, above glibc's mmap threshold, so fresh temporaries cost a
# mmap + page faults + munmap each — a third of the wall time in system calls when a batch
# of same-sized cases is scored. Same operations in the same order, so the same bits.
_scratch = threading.local()


def _buffers(shape: tuple[int, ...], count: int) -> list[np.ndarray]:
    cached = getattr(_scratch, "arrays", None)
    if cached is None or cached[0].shape != shape or len(cached) < count:
        cached = [np.empty(shape, dtype=np.float64) for _ in range(count)]
        # keep at most ~256 MiB per thread (a 3-D synthesis volume is scored once, not batched)
        _scratch.arrays = cached if cached[0].nbytes * count <= 256 * 2**20 else None
    return cached[:count]


def reference_data_range(reference: np.ndarray) -> float:
    """R = max − min of the reference (the stated data range of every SSIM/PSNR here)."""
    return float(np.max(reference)) - float(np.min(reference))


def _check(reference: np.ndarray, prediction: np.ndarray, win_size: int, data_range: float) -> None:
    if reference.shape != prediction.shape:
        raise ValueError(f"shape mismatch: reference {reference.shape} vs prediction {prediction.shape}")
    if win_size % 2 == 0 or win_size < 3:
        raise ValueError("win_size must be odd and at least 3")
    if min(reference.shape) < win_size:
        raise ValueError(f"image {reference.shape} is smaller than the {win_size}-wide SSIM window")
    if not (data_range > 0 and math.isfinite(data_range)):
        raise ValueError(f"data_range must be a positive finite number, got {data_range!r}")


def _as_float64(array: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """The array itself if already float64, else its float64 copy in `scratch` (exact widening)."""
    array = np.asarray(array)
    if array.dtype == np.float64:
        return array
    np.copyto(scratch, array, casting="unsafe")
    return scratch


def ssim(reference: np.ndarray, prediction: np.ndarray, data_range: float,
         win_size: int = WIN_SIZE) -> float:
    """Mean SSIM of two same-shaped 2-D or 3-D arrays (float64 arithmetic)."""
    from scipy.ndimage import uniform_filter
    _check(reference, prediction, win_size, data_range)
    ux, uy, uxx, uyy, uxy, tmp, x64, y64 = _buffers(np.shape(reference), 8)
    x = _as_float64(reference, x64)
    y = _as_float64(prediction, y64)
    size = win_size
    n_points = win_size ** x.ndim
    cov_norm = n_points / (n_points - 1)
    uniform_filter(x, size=size, output=ux)
    uniform_filter(y, size=size, output=uy)
    np.multiply(x, x, out=tmp)
    uniform_filter(tmp, size=size, output=uxx)
    np.multiply(y, y, out=tmp)
    uniform_filter(tmp, size=size, output=uyy)
    np.multiply(x, y, out=tmp)
    uniform_filter(tmp, size=size, output=uxy)
    c1 = (K1 * data_range) ** 2
    c2 = (K2 * data_range) ** 2
    # Same operations, same order as scikit-image, but in place:
    #   vx = cov_norm*(uxx - ux*ux); vy = ...; vxy = cov_norm*(uxy - ux*uy)
    #   A1 = 2*ux*uy + C1; A2 = 2*vxy + C2; B1 = ux**2 + uy**2 + C1; B2 = vx + vy + C2
    #   S = (A1*A2) / (B1*B2)
    np.multiply(ux, ux, out=tmp)
    np.subtract(uxx, tmp, out=uxx)
    np.multiply(cov_norm, uxx, out=uxx)                  # vx
    np.multiply(uy, uy, out=tmp)
    np.subtract(uyy, tmp, out=uyy)
    np.multiply(cov_norm, uyy, out=uyy)                  # vy
    np.multiply(ux, uy, out=tmp)
    np.subtract(uxy, tmp, out=uxy)
    np.multiply(cov_norm, uxy, out=uxy)                  # vxy
    np.multiply(2, ux, out=tmp)
    np.multiply(tmp, uy, out=tmp)
    np.add(tmp, c1, out=tmp)                             # A1
    np.multiply(2, uxy, out=uxy)
    np.add(uxy, c2, out=uxy)                             # A2
    np.multiply(ux, ux, out=ux)
    np.multiply(uy, uy, out=uy)
    np.add(ux, uy, out=ux)
    np.add(ux, c1, out=ux)                               # B1
    np.add(uxx, uyy, out=uxx)
    np.add(uxx, c2, out=uxx)                             # B2
    np.multiply(ux, uxx, out=ux)                         # D = B1*B2
    np.multiply(tmp, uxy, out=tmp)                       # A1*A2
    np.divide(tmp, ux, out=tmp)                          # S
    pad = (win_size - 1) // 2
    inner = tuple(slice(pad, s - pad) for s in tmp.shape)
    return float(tmp[inner].mean(dtype=np.float64))


def psnr(reference: np.ndarray, prediction: np.ndarray, data_range: float) -> float:
    """PSNR in dB; +inf for identical images (as scikit-image)."""
    if reference.shape != prediction.shape:
        raise ValueError(f"shape mismatch: reference {reference.shape} vs prediction {prediction.shape}")
    x = np.asarray(reference, dtype=np.float64)
    y = np.asarray(prediction, dtype=np.float64)
    err = np.mean((x - y) ** 2, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return float(10 * np.log10((float(data_range) ** 2) / err))


def ssim_psnr(reference: np.ndarray, prediction: np.ndarray, data_range: float | None = None,
              win_size: int = WIN_SIZE) -> tuple[float, float, float]:
    """(ssim, psnr, data_range); data_range defaults to the reference's range."""
    r = reference_data_range(reference) if data_range is None else float(data_range)
    return ssim(reference, prediction, r, win_size), psnr(reference, prediction, r), r


def ssim_psnr_many(pairs: Iterable[tuple[np.ndarray, np.ndarray]] | Sequence[tuple[np.ndarray, np.ndarray]],
                   workers: int = 2, win_size: int = WIN_SIZE) -> list[tuple[float, float, float]]:
    """`ssim_psnr` over (reference, prediction) pairs on a thread pool, results in order.

    A pair that raises (shape mismatch, flat reference) gives (nan, nan, nan) for that pair
    only; callers decide what a failed case means."""
    def one(pair: tuple[np.ndarray, np.ndarray]) -> tuple[float, float, float]:
        try:
            return ssim_psnr(pair[0], pair[1], win_size=win_size)
        except ValueError:
            return (math.nan, math.nan, math.nan)

    if workers <= 1:
        return [one(p) for p in pairs]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, pairs))
