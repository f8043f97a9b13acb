"""Dice similarity coefficient, binary and multi-class. Pure functions, no I/O.

Dice = 2|A∩B| / (|A| + |B|)  (Dice 1945; Zou et al. 2004). Convention: when both masks are
empty Dice is 1.0 (perfect agreement on absence), when exactly one is empty it is 0.0.

Implementation note: all classes are counted in ONE pass with a joint histogram
(`bincount(ref * K + pred)`), i.e. a confusion matrix, instead of K boolean passes.
"""
from __future__ import annotations

import numpy as np


def confusion_matrix(reference: np.ndarray, prediction: np.ndarray, n_labels: int) -> np.ndarray:
    """K×K counts, rows = reference label, columns = predicted label.

    Both arrays must hold integers in [0, n_labels); shapes must match."""
    if reference.shape != prediction.shape:
        raise ValueError(f"shape mismatch: reference {reference.shape} vs prediction {prediction.shape}")
    # uint8 * K would overflow for K > 15; widen only when needed. Work on the N-d arrays and
    # ravel in memory order ('K'): a C-order reshape of a Fortran-ordered NIfTI volume
    # would copy it with strided reads, ~100x slower than the arithmetic itself.
    work = np.uint8 if n_labels * n_labels <= 256 else np.int64
    # n_labels <= 16 for uint8: the product stays below 256 in the narrow type
    joint = reference.astype(work, copy=False) * n_labels + prediction.astype(work, copy=False)
    return np.bincount(joint.ravel(order="K"), minlength=n_labels * n_labels).reshape(n_labels, n_labels)


def dice_from_confusion(cm: np.ndarray, label: int) -> float:
    tp = float(cm[label, label])
    denom = float(cm[label, :].sum() + cm[:, label].sum())
    return 1.0 if denom == 0 else 2.0 * tp / denom


def binary_dice(reference: np.ndarray, prediction: np.ndarray) -> float:
    """Dice of the foreground (non-zero) of two binary masks."""
    if reference.shape != prediction.shape:
        raise ValueError(f"shape mismatch: reference {reference.shape} vs prediction {prediction.shape}")
    # element-wise on the N-d arrays (no reshape: see confusion_matrix)
    ref = reference if reference.dtype == np.bool_ else reference != 0
    pred = prediction if prediction.dtype == np.bool_ else prediction != 0
    inter = np.count_nonzero(ref & pred)
    denom = np.count_nonzero(ref) + np.count_nonzero(pred)
    return 1.0 if denom == 0 else 2.0 * inter / denom


def multiclass_dice(reference: np.ndarray, prediction: np.ndarray, labels: list[int]) -> dict[int, float]:
    """Per-label Dice for the given foreground labels (background 0 excluded by the caller)."""
    n = max([int(reference.max(initial=0)), int(prediction.max(initial=0)), *labels]) + 1
    cm = confusion_matrix(reference, prediction, n)
    return {label: dice_from_confusion(cm, label) for label in labels}
