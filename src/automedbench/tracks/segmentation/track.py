"""Segmentation track (docs/scoring.md#segmentation-rules): binary organ + lesion, and multi-class label maps.

Task options (task.yaml `track_options`, validated by `SegmentationOptions`):
  variant: organ_lesion | multiclass
  organ_lesion: outputs organ.nii.gz + lesion.nii.gz (0/1, input shape and affine)
      task score = 0.5 · lesion Dice + 0.5 · organ Dice, both means over ALL expected cases.
      Lesion Dice uses the BraTS convention on lesion-free references (empty prediction → 1,
      any predicted lesion voxel → 0), so labelling everything as lesion on negative cases is
      not free. The mean over lesion-positive cases only (the reference harness's number) is
      kept as the diagnostic `lesion_dice_positive`.
  multiclass: outputs one label map (integers), `labels: {1: name, 2: name, ...}`
      task score = mean over cases of the macro Dice over the classes present in the reference
      or the prediction of that case (nnU-Net/MONAI: a class absent from both is left out).
Missing or invalid cases count 0 (metric × completion); reference_error cases are excluded.
The output's affine must match the input's (max |Δ| ≤ 1e-3) and its shape must be equal (a
trailing singleton axis is tolerated, a leading one is not).
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...metrics.dice import binary_dice, confusion_matrix, dice_from_confusion
from ..base import (
    AggregateResult,
    CaseCheck,
    CaseRecord,
    CaseScore,
    MedalBands,
    OutputFile,
    ReferenceMethod,
    ScoredCases,
    ScoringContext,
    ScriptedMethods,
    SubmissionLayout,
    SubmittedCase,
    Track,
    TrackWording,
    with_reference_method,
)
from ..nifti_io import NiftiReadError, affine_max_diff, match_shape, read_nifti
from ..pictures import CasePicture, PictureCase
from ..profile import ProfileScore
from ..relations import Classes, Relation
from ..reducers import macro_over_classes, mean_over_cases, mean_over_present_cases
from ..safety import safe_output_file
from . import reference_profile
from .data import DATASETS
from .folder import LAYOUTS as FOLDER_LAYOUTS
from .options import SegmentationOptions
from .pictures import segmentation_pictures
from .scripted import GENERIC_METHOD, SegmentationMethods
from ..mutants import Mutant
from .mutants import segmentation_mutants

# the classical methods (docs/your-task.md section 5), tried in this order on a task naming none
REFERENCE_METHODS = [
    ReferenceMethod(GENERIC_METHOD, "1-D k-means intensity classes, darkest = background; organ = largest "
                    "bright component, lesion = outliers inside it", "any task (channel 0 is used)",
                    lambda o: None),
    ReferenceMethod("brain_lesion_classical.py", "brain mask + bias correction + bright-lesion threshold",
                    "a skull-stripped T1-like brain MRI, variant organ_lesion",
                    lambda o: None if o.variant == "organ_lesion" else "variant organ_lesion", automatic=False),
    ReferenceMethod("brain_tissue_classical.py", "brain mask + bias correction + CSF/GM/WM intensity classes",
                    "a skull-stripped T1-like brain MRI, variant multiclass with labels {1: CSF, 2: GM, 3: WM}",
                    lambda o: None if o.variant == "multiclass" and len(o.labels) == 3 else
                    "variant multiclass with three labels", automatic=False),
]

if TYPE_CHECKING:
    from ...data import DatasetInfo
    from ...data.from_folder import FolderLayout

AFFINE_TOLERANCE = 1e-3
HERE = Path(__file__).parent


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


def _read_mask(case_dir: Path, name: str, shape: tuple[int, ...], affine: np.ndarray | None,
               max_label: int) -> tuple[np.ndarray | None, str]:
    path, reason = safe_output_file(case_dir, name)
    if path is None:
        return None, reason
    try:
        arr, out_affine = read_nifti(path)
    except NiftiReadError as exc:
        return None, f"{name}: unreadable NIfTI: {exc}"
    if not match_shape(arr.shape, shape):
        return None, f"{name}: wrong shape {arr.shape}, expected {shape}"
    arr = arr.reshape(shape)
    if affine is not None:
        diff = affine_max_diff(out_affine, affine)
        if not np.isfinite(diff) or diff > AFFINE_TOLERANCE:
            return None, (f"{name}: affine differs from the input's (max |Δ| = {diff:.3g} > "
                          f"{AFFINE_TOLERANCE}; flipped or re-oriented output?)")
    mask, reason = _as_labels(arr, max_label)
    return (mask, "") if mask is not None else (None, f"{name}: {reason}")


def _as_bool(mask: np.ndarray) -> np.ndarray:
    """A 0/1 uint8 mask viewed as bool without a copy (checked: max <= 1), else mask != 0."""
    if mask.dtype == np.uint8 and mask.max(initial=0) <= 1:
        return mask.view(np.bool_)
    return mask != 0


def lesion_dice_brats(reference: np.ndarray, prediction: np.ndarray) -> float:
    """Dice with the BraTS convention for an empty reference: 1 if the prediction is empty
    too, else 0 (Menze et al., 2015; the BraTS evaluation)."""
    if not reference.any():
        return 0.0 if prediction.any() else 1.0
    return binary_dice(reference, prediction)


# plausibility (docs/judge.md "Plausibility"): an organ mask above this share of the volume, a
# lesion mask with more than this share of its voxels outside the organ
ORGAN_MAX_SHARE = 0.9
LESION_OUTSIDE_SHARE = 0.5


class SegmentationTrack(Track[SegmentationOptions]):
    name = "segmentation"
    options_model = SegmentationOptions
    # aggregate reads only per-case metrics: the core frees each case's arrays once it is scored
    aggregate_uses_case_data = False
    runtime_packages: tuple[str, ...] = ("nibabel",)
    tasks_dir = HERE / "tasks"
    wording = TrackWording(
        rubric={
            "s1c": "for segmentation: a model/method for the TARGET structure (e.g. a lesion model, "
                   "not a general organ segmenter)",
            "s2b": "shape, voxel spacing, orientation/affine, dtype and intensity range of an input",
        },
        skills={},
        input_properties="shape, voxel spacing, orientation (affine), dtype and intensity range",
    )

    # ---- contract ----------------------------------------------------------------------
    def _files(self, options: SegmentationOptions) -> list[str]:
        if options.variant == "multiclass":
            return [options.label_file]
        return [options.organ_file, options.lesion_file]

    def mutants(self, options: SegmentationOptions) -> list[Mutant]:
        """What a look at one output must catch (mutants.py; docs/judge.md \"Experiments\")."""
        return segmentation_mutants(options)

    def submission(self, options: SegmentationOptions) -> SubmissionLayout:
        same = "exactly the input's shape and affine (NIfTI, gzip)"
        if options.variant == "multiclass":
            names = ", ".join(f"{k} {v}" for k, v in sorted(options.labels.items()))
            files = [OutputFile(name=options.label_file,
                                description=f"integer label map (uint8): 0 background, {names}; {same}")]
        else:
            files = [OutputFile(name=options.organ_file,
                                description=f"{options.organ_name} mask, uint8 values 0/1, {same}"),
                     OutputFile(name=options.lesion_file,
                                description=f"{options.lesion_name} mask, uint8 values 0/1, {same}; "
                                            "EMPTY (all 0) when the case has no lesion")]
        return SubmissionLayout(kind="per_case", files=files)

    def metric_name(self, options: SegmentationOptions) -> str:
        return "macro_dice" if options.variant == "multiclass" else "0.5*lesion_dice+0.5*organ_dice"

    def default_bands(self, options: SegmentationOptions) -> MedalBands:
        if options.variant == "multiclass":
            return MedalBands(metric="macro_dice", good=0.70, okay=0.30)
        # the BraTS-convention lesion Dice over all cases: lesion on negative cases is not free
        return MedalBands(metric="lesion_dice", good=0.70, okay=0.30)

    # ---- I/O -----------------------------------------------------------------------------
    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any],
                       options: SegmentationOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        ref: dict[str, np.ndarray] = {}
        affine = None
        for name in self._files(options):
            arr, affine = read_nifti(private_case_dir / name)  # raises: a harness fault, not the agent's
            ref[name] = arr.astype(np.uint8, copy=False)
        shape = next(iter(ref.values())).shape
        return ref, {"shape": shape, "affine": np.asarray(affine, dtype=np.float64)}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any],
                   options: SegmentationOptions) -> CaseCheck:
        if submitted.dir is None:
            return CaseCheck(False, "no output folder")
        max_label = max(options.labels) if options.variant == "multiclass" else 1
        pred: dict[str, np.ndarray] = {}
        for name in self._files(options):
            mask, reason = _read_mask(submitted.dir, name, tuple(reference_meta["shape"]),
                                      reference_meta.get("affine"), max_label)
            if mask is None:
                return CaseCheck(False, reason)
            pred[name] = mask
        non_trivial = any(np.count_nonzero(a) for a in pred.values())
        return CaseCheck(True, "", pred, non_trivial=non_trivial)

    # ---- pure scoring ----------------------------------------------------------------------
    def relations(self, prediction: dict[str, np.ndarray], input_case_dir: Path,
                  options: SegmentationOptions) -> list[Relation]:
        """A multiclass label map against its input's contrast, where the task states the order
        of its classes from darkest to brightest (`intensity_order`; tracks/relations.py Classes)."""
        labels = prediction.get(options.label_file) if isinstance(prediction, dict) else None
        if options.variant != "multiclass" or len(options.intensity_order) < 2 or labels is None:
            return []
        try:
            image, _ = read_nifti(input_case_dir / options.input_file)
        except (NiftiReadError, OSError, ValueError):
            return []
        return [Classes(labels=labels, input=np.asarray(image), order=tuple(options.intensity_order),
                        names={k: v.replace("_", " ") for k, v in options.labels.items()})]

    def plausibility(self, prediction: dict[str, np.ndarray], input_case_dir: Path,
                     options: SegmentationOptions) -> str:
        """What a look at one case's masks shows without the reference (docs/judge.md
        "Plausibility"): checks of the masks alone (a lesion mask as large as the organ's, or
        mostly outside it, or an organ mask covering nearly the whole volume), then the relations
        to the input (`relations`: a label map's classes in the contrast order the task states)."""
        if options.variant == "multiclass":
            return super().plausibility(prediction, input_case_dir, options)   # relations: Classes
        try:
            organ = _as_bool(prediction[options.organ_file])
            lesion = _as_bool(prediction[options.lesion_file])
        except (KeyError, TypeError, ValueError):
            return ""
        n_organ, n_lesion = int(organ.sum()), int(lesion.sum())
        if organ.size and n_organ > ORGAN_MAX_SHARE * organ.size:
            return f"the {options.organ_name} mask covers {n_organ / organ.size:.0%} of the volume"
        if n_lesion and n_lesion >= n_organ:
            return (f"the {options.lesion_name} mask ({n_lesion} voxels) is as large as the "
                    f"{options.organ_name} mask ({n_organ})")
        outside = int((lesion & ~organ).sum()) if lesion.shape == organ.shape else 0
        if n_lesion and outside > LESION_OUTSIDE_SHARE * n_lesion:
            return f"{outside / n_lesion:.0%} of the {options.lesion_name} mask lies outside the {options.organ_name} mask"
        return super().plausibility(prediction, input_case_dir, options)   # relations: none declared

    def score_case(self, prediction: dict[str, np.ndarray], reference: dict[str, np.ndarray],
                   options: SegmentationOptions, context: ScoringContext) -> CaseScore:
        if options.variant == "multiclass":
            return self._score_multiclass(prediction, reference, options)
        organ_f, lesion_f = self._files(options)
        organ = binary_dice(_as_bool(reference[organ_f]), _as_bool(prediction[organ_f]))
        ref_lesion, pred_lesion = _as_bool(reference[lesion_f]), _as_bool(prediction[lesion_f])
        positive = bool(np.count_nonzero(ref_lesion))
        metrics: dict[str, float | None] = {"organ_dice": organ,
                                            "lesion_dice": lesion_dice_brats(ref_lesion, pred_lesion)}
        if not positive:  # diagnostic: false-positive lesion voxels on a negative case
            metrics["lesion_false_positive_voxels"] = float(np.count_nonzero(pred_lesion))
        why = "; ".join(w for w in (zero_dice_why("organ", organ, _as_bool(reference[organ_f]), _as_bool(prediction[organ_f])),
                                    zero_dice_why("lesion", metrics["lesion_dice"], ref_lesion, pred_lesion)) if w)
        return CaseScore(metrics, extra={"lesion_positive": positive, "why": why})

    def _score_multiclass(self, prediction: dict[str, np.ndarray], reference: dict[str, np.ndarray],
                          options: SegmentationOptions) -> CaseScore:
        (name,) = self._files(options)
        labels = options.labels
        cm = confusion_matrix(reference[name], prediction[name], max(labels) + 1)
        per_label: dict[str, float | None] = {}
        for k in sorted(labels):
            in_ref, in_pred = cm[k, :].sum() > 0, cm[:, k].sum() > 0
            # absent from both: not applicable (nnU-Net/MONAI); absent from ref but predicted → 0
            per_label[f"dice_{labels[k]}"] = dice_from_confusion(cm, k) if (in_ref or in_pred) else None
        macro = macro_over_classes(per_label)
        if macro is None:
            macro = 1.0   # no class in reference or prediction, and none predicted: perfect
        return CaseScore({"macro_dice": macro, **per_label})

    def reference_score(self, records: list[CaseRecord], options: SegmentationOptions,
                        context: ScoringContext) -> ProfileScore:
        """The published reference's task score (reference_profile.py; docs/scoring-profiles.md)."""
        return reference_profile.reference_score(records, options.labels if options.variant == "multiclass" else None)

    def aggregate(self, cases: ScoredCases, options: SegmentationOptions,
                  context: ScoringContext) -> AggregateResult:
        """Score over the valid cases (the core multiplies by completion); the reported Dice
        values are means over ALL expected cases (missing/invalid = 0)."""
        expected, valid = cases.expected, cases.valid
        if options.variant == "multiclass":
            macro = mean_over_cases(expected, "macro_dice")
            per_class = {f"dice_{v}": mean_over_present_cases(valid, f"dice_{v}") for v in options.labels.values()}
            return AggregateResult(score=mean_over_cases(valid, "macro_dice") or 0.0,
                                   metrics={"macro_dice": macro, **per_class}, components=["macro_dice"])
        organ, lesion = mean_over_cases(expected, "organ_dice"), mean_over_cases(expected, "lesion_dice")
        # lesion-positive cases come from the manifest, so a missing case still counts (docs/scoring.md#segmentation-rules)
        positive = [r for r in expected if r.meta.get("lesion_positive")]
        negative = [r for r in expected if not r.meta.get("lesion_positive")]
        score_valid = 0.5 * (mean_over_cases(valid, "lesion_dice") or 0.0) + 0.5 * (mean_over_cases(valid, "organ_dice") or 0.0)
        return AggregateResult(
            score=score_valid,
            metrics={"organ_dice": organ, "lesion_dice": lesion,
                     "lesion_dice_positive": mean_over_cases(positive, "lesion_dice"),
                     "negative_cases_clean": mean_over_cases(negative, "lesion_dice"),
                     "n_lesion_positive": float(len(positive)), "n_lesion_negative": float(len(negative)),
                     # empty masks everywhere score lesion Dice 1 on every lesion-free case: the
                     # medal bands start above that (docs/scoring.md "Medals start above chance")
                     "chance_level.lesion_dice": len(negative) / len(expected) if expected else None},
            components=["lesion_dice", "organ_dice"],
            notes={"chance_level.lesion_dice": "empty lesion masks on every case (lesion Dice 1 on each lesion-free "
                                                "case, 0 elsewhere); the medal bands are read from it up"})

    # ---- plug-in assets ---------------------------------------------------------------------
    def datasets(self) -> list[DatasetInfo]:
        return list(DATASETS)

    def scripted_methods(self, options: SegmentationOptions) -> ScriptedMethods | None:
        chosen = with_reference_method(self, options)
        return None if chosen is None else SegmentationMethods(chosen, [f.name for f in self.submission(options).files])

    def reference_methods(self) -> list[ReferenceMethod]:
        return list(REFERENCE_METHODS)

    def folder_layouts(self) -> list[FolderLayout]:
        """The folders `data stage --from-folder` stages (folder.py; trees in docs/your-task.md)."""
        return list(FOLDER_LAYOUTS)

    def case_pictures(self, case: PictureCase, options: SegmentationOptions) -> list[CasePicture]:
        """Contours over the image on the most-different slice (tracks/pictures.py)."""
        return segmentation_pictures(case, options.input_file)

    def gold_submission(self, dataset_root: Path, outputs: Path, options: SegmentationOptions) -> None:
        """Copy the private references as the submission (they carry the input's affine)."""
        private = dataset_root / "private"
        for case in sorted(p for p in private.iterdir() if p.is_dir()):
            (outputs / case.name).mkdir(parents=True, exist_ok=True)
            for name in self._files(options):
                shutil.copyfile(case / name, outputs / case.name / name)


def _slices(mask: np.ndarray) -> str:
    """The slices (last axis) a mask occupies, e.g. "slices 12-18"."""
    z = np.flatnonzero(mask.reshape(-1, mask.shape[-1]).any(axis=0)) if mask.ndim >= 2 else np.array([])
    if z.size == 0:
        return "no slice"
    return f"slice {z[0]}" if z[0] == z[-1] else f"slices {z[0]}-{z[-1]}"


def zero_dice_why(name: str, dice: float | None, ref: np.ndarray, pred: np.ndarray) -> str:
    """Why a Dice of 0 is 0, in one line (docs/tracks.md `extra["why"]`): an empty prediction, a
    prediction where the reference has nothing, or masks that never meet (with where each lies)."""
    if dice is None or dice > 0:
        return ""
    n_ref, n_pred = int(np.count_nonzero(ref)), int(np.count_nonzero(pred))
    if n_pred == 0:
        return f"{name} Dice 0: the prediction is empty; the ground truth has {n_ref} voxels ({_slices(ref)})"
    if n_ref == 0:
        return f"{name} Dice 0: the ground truth has none; the prediction marks {n_pred} voxels ({_slices(pred)})"
    return (f"{name} Dice 0: no overlap; ground truth {n_ref} voxels on {_slices(ref)}, "
            f"prediction {n_pred} voxels on {_slices(pred)}")
