"""Segmentation track (SPEC §4): binary organ + lesion, and multi-class label maps.

Task options (task.yaml `track_options`):
  variant: organ_lesion | multiclass
  organ_lesion: outputs organ.nii.gz + lesion.nii.gz (0/1, input shape)
      task score = 0.5 · mean lesion Dice over lesion-positive cases + 0.5 · mean organ Dice
  multiclass: outputs one label map (integers), `labels: {1: name, 2: name, ...}`
      task score = mean over cases of the macro Dice over the listed labels
Missing or invalid cases count 0 (metric × completion, SPEC §4).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..metrics.dice import binary_dice, confusion_matrix, dice_from_confusion
from .base import CaseCheck, CaseScore
from .nifti_io import NiftiReadError, read_nifti
from .safety import safe_output_file


def _as_labels(arr: np.ndarray, max_label: int) -> tuple[np.ndarray | None, str]:
    """Validate voxel values and return them as uint8, or (None, reason)."""
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            return None, "contains NaN or Inf values"
        if not (arr == np.round(arr)).all():
            return None, "non-integer values in a label map"
    elif arr.dtype.kind not in "iub":
        return None, f"unsupported voxel type {arr.dtype}"
    lo = arr.min() if arr.dtype.kind != "u" else 0  # unsigned: skip a full pass
    hi = arr.max()
    if lo < 0 or hi > max_label:
        what = "non-binary values" if max_label == 1 else "labels outside the allowed set"
        return None, f"{what} (found range {lo:g}..{hi:g}, allowed 0..{max_label})"
    return arr.astype(np.uint8, copy=False), ""


def _read_mask(case_dir: Path, name: str, shape: tuple[int, ...], max_label: int) -> tuple[np.ndarray | None, str]:
    path, reason = safe_output_file(case_dir, name)
    if path is None:
        return None, reason
    try:
        arr, _ = read_nifti(path)
    except NiftiReadError as exc:
        return None, f"{name}: unreadable NIfTI: {exc}"
    arr = np.squeeze(arr) if arr.ndim > len(shape) else arr
    if arr.shape != shape:
        return None, f"{name}: wrong shape {arr.shape}, expected {shape}"
    mask, reason = _as_labels(arr, max_label)
    return (mask, "") if mask is not None else (None, f"{name}: {reason}")


def _as_bool(mask: np.ndarray) -> np.ndarray:
    """A 0/1 uint8 mask viewed as bool without a copy (checked: max <= 1), else mask != 0."""
    if mask.dtype == np.uint8 and mask.max(initial=0) <= 1:
        return mask.view(np.bool_)
    return mask != 0


class SegmentationTrack:
    name = "segmentation"

    def metric_name(self, options: dict[str, Any]) -> str:
        return "macro_dice" if options.get("variant") == "multiclass" else "0.5*lesion_dice+0.5*organ_dice"

    def medal_metric(self, options: dict[str, Any]) -> str:
        return "macro_dice" if options.get("variant") == "multiclass" else "lesion_dice"

    # ---- I/O ---------------------------------------------------------------------
    def load_reference(self, private_case_dir: Path, options: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict]:
        ref = {}
        for name in self._files(options):
            arr, _ = read_nifti(private_case_dir / name)
            ref[name] = arr.astype(np.uint8, copy=False)
        shape = next(iter(ref.values())).shape
        return ref, {"shape": shape}

    def check_case(self, case_dir: Path, reference_meta: dict[str, Any], options: dict[str, Any]) -> CaseCheck:
        max_label = max(int(k) for k in options.get("labels", {1: "fg"})) if options.get("variant") == "multiclass" else 1
        pred = {}
        for name in self._files(options):
            mask, reason = _read_mask(case_dir, name, tuple(reference_meta["shape"]), max_label)
            if mask is None:
                return CaseCheck(False, reason)
            pred[name] = mask
        return CaseCheck(True, "", pred)

    # ---- pure scoring ------------------------------------------------------------------
    def score_case(self, prediction: dict[str, np.ndarray], reference: dict[str, np.ndarray],
                   options: dict[str, Any]) -> CaseScore:
        if options.get("variant") == "multiclass":
            return self._score_multiclass(prediction, reference, options)
        organ_f, lesion_f = self._files(options)
        organ = binary_dice(_as_bool(reference[organ_f]), _as_bool(prediction[organ_f]))
        ref_lesion, pred_lesion = _as_bool(reference[lesion_f]), _as_bool(prediction[lesion_f])
        positive = bool(np.count_nonzero(ref_lesion))
        lesion = binary_dice(ref_lesion, pred_lesion) if positive else None
        metrics: dict[str, float | None] = {"organ_dice": organ, "lesion_dice": lesion}
        if not positive:  # diagnostic only: false-positive lesion voxels on a negative case
            metrics["lesion_false_positive_voxels"] = float(np.count_nonzero(pred_lesion))
        return CaseScore(metrics)

    def _score_multiclass(self, prediction, reference, options) -> CaseScore:
        (name,) = self._files(options)
        labels = {int(k): v for k, v in options["labels"].items()}
        n = max(labels) + 1
        cm = confusion_matrix(reference[name], prediction[name], n)
        per_label = {f"dice_{labels[k]}": dice_from_confusion(cm, k) for k in sorted(labels)}
        macro = float(np.mean(list(per_label.values())))
        return CaseScore({"macro_dice": macro, **per_label})

    def aggregate(self, per_case: list[CaseScore | None], options: dict[str, Any],
                  lesion_positive: list[bool] | None = None) -> dict[str, float]:
        """Means over ALL expected cases (None = missing/invalid = 0).

        `lesion_positive[i]` says whether expected case i has a lesion in its reference;
        for a missing case we cannot read the prediction but we know this from the manifest."""
        n = len(per_case)
        if n == 0:
            return {"score": 0.0}
        if options.get("variant") == "multiclass":
            macro = sum(c.metrics["macro_dice"] for c in per_case if c) / n
            return {"score": macro, "macro_dice": macro}
        organ = sum(c.metrics["organ_dice"] for c in per_case if c) / n
        positive = lesion_positive or [bool(c and c.metrics.get("lesion_dice") is not None) for c in per_case]
        n_pos = sum(positive)
        lesion = (sum(c.metrics["lesion_dice"] for c, p in zip(per_case, positive) if p and c) / n_pos
                  if n_pos else None)
        score = organ if lesion is None else 0.5 * lesion + 0.5 * organ
        out = {"score": score, "organ_dice": organ}
        if lesion is not None:
            out["lesion_dice"] = lesion
        return out

    @staticmethod
    def _files(options: dict[str, Any]) -> list[str]:
        if options.get("variant") == "multiclass":
            return [options.get("label_file", "labels.nii.gz")]
        return [options.get("organ_file", "organ.nii.gz"), options.get("lesion_file", "lesion.nii.gz")]
