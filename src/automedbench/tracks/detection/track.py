"""Detection track (docs/tracks/detection.md): boxes on 2D images, task score = mAP@0.5 (COCO 101-point) × completion.

Per case the agent writes `outputs/<case_id>/prediction.json`:
    {"boxes": [{"class": "nodule", "score": 0.87, "x1": 10, "y1": 20, "x2": 42, "y2": 55}, ...]}
in pixel coordinates of the input image (x to the right, y down; 0 <= x1 < x2 <= width,
0 <= y1 < y2 <= height); an image without findings gets `{"boxes": []}`.

Class policy (task.yaml `track_options`): `classes` lists the only accepted class names
(case-insensitive). With `class_agnostic: true` every box is scored as one class and the name
"abnormality" is accepted too. Any other name makes the case invalid with a reason — an
invented class never silently becomes a new class (and never silently becomes a listed one).

Task score: mAP@0.5 over the WHOLE expected dataset — the ground truth of an unanswered or
invalid image counts as missed — multiplied by completion (the fraction of expected images
with a valid prediction.json). The completion factor closes a loophole of dataset-level AP:
skipping the negative images would otherwise cost nothing. `map50_answered` (AP over the
valid images only) is kept as a diagnostic.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...metrics.detection_map import match_detections, mean_average_precision
from ..pictures import CasePicture, PictureCase
from ..base import (
    AggregateResult,
    CaseCheck,
    CaseRecord,
    CaseScore,
    CaseStatus,
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
from ..profile import ProfileScore
from ..relations import Geometry, Relation
from . import reference_profile
from .boxes import AGNOSTIC_CLASS, class_table, none_found_why, read_prediction, reference_rows
from .data import DATASETS
from .folder import LAYOUTS as FOLDER_LAYOUTS
from .folder import REFERENCE_FILE
from .options import DetectionOptions
from .pictures import detection_pictures
from .scripted import DETECTOR_CLASSES, DetectionMethods
from .slips import slip_explaining_misses
from ..mutants import Mutant
from .mutants import detection_mutants

LOGIC_FLAG = "logic_suspect"   # scoring/error_codes.yaml case_flag_codes -> LOGIC_SUSPECT

# the classical methods (docs/your-task.md section 5), tried in this order on a task naming none
REFERENCE_METHODS = [
    ReferenceMethod("marker_detector.py", "white top-hat + connected components: small bright round objects",
                    "classes [marker, ring] (solid / hollow), or one class (every box gets it), or class_agnostic",
                    lambda o: None if (set(o.classes) == set(DETECTOR_CLASSES) or len(o.classes) == 1
                                       or o.class_agnostic) else
                    f"classes {list(DETECTOR_CLASSES)}, a single class, or `class_agnostic: true`"),
]

if TYPE_CHECKING:
    from ...data import DatasetInfo
    from ...data.from_folder import FolderLayout


class DetectionTrack(Track[DetectionOptions]):
    name = "detection"
    options_model = DetectionOptions
    runtime_packages = ("numpy", "scipy", "pillow")
    tasks_dir = Path(__file__).with_name("tasks")
    trivial_can_be_right = True     # an image without markers: no boxes is the right answer
    wording = TrackWording(
        rubric={"s1c": "a detector for the task's findings on this image type, with boxes per class",
                "s2b": "image size, bit depth and intensity range of the inputs checked",
                "s3": "the pilot's boxes checked: inside the image, x1 < x2, y1 < y2, scores in [0, 1]"},
        skills={"s3": "Overlay the pilot's boxes on its image (or print them with the image size) "
                      "and check they are corner coordinates inside the image."},
        input_properties="image size, bit depth and intensity range")

    # ---- contract ------------------------------------------------------------------------
    def mutants(self, options: DetectionOptions) -> list[Mutant]:
        """What a look at one output must catch (mutants.py; docs/judge.md \"Experiments\")."""
        return detection_mutants(options)

    def submission(self, options: DetectionOptions) -> SubmissionLayout:
        o = options
        names = " / ".join(f'"{c}"' for c in o.classes)
        policy = (f'Every box is scored as one class; `class` may be {names} or "{AGNOSTIC_CLASS}".'
                  if o.class_agnostic else f"`class` must be one of {names}.")
        return SubmissionLayout(
            kind="per_case",
            files=[OutputFile(name=o.output_file, description=(
                'JSON {"boxes": [{"class": ..., "score": ..., "x1": ..., "y1": ..., "x2": ..., "y2": ...}]} '
                f"— pixel corner coordinates of `{o.image_file}` (0 <= x1 < x2 <= width, "
                '0 <= y1 < y2 <= height), score in [0, 1]; {"boxes": []} when there is no finding'))],
            notes=(f"{policy} Any other class name, a box outside the image, a score outside [0, 1] "
                   "or malformed JSON makes that case invalid."))

    def metric_name(self, options: DetectionOptions) -> str:
        return f"mAP@{options.iou_threshold:g} (COCO 101-point) x completion"

    def default_bands(self, options: DetectionOptions) -> MedalBands:
        return MedalBands(metric="score", good=0.60, okay=0.30)

    # ---- reading ---------------------------------------------------------------------------
    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any],
                       options: DetectionOptions) -> tuple[dict[str, Any], dict[str, Any]]:
        o = options
        data = json.loads((private_case_dir / REFERENCE_FILE).read_text())
        width, height = int(data["width"]), int(data["height"])
        if width <= 0 or height <= 0:
            raise ValueError(f"reference image size {width}x{height} is not positive")
        rows = reference_rows(data["boxes"], class_table(o.classes, o.class_agnostic))
        return {"boxes": rows, "width": width, "height": height}, {"width": width, "height": height}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any],
                   options: DetectionOptions) -> CaseCheck:
        o = options
        if submitted.dir is None:
            return CaseCheck(False, f"{o.output_file}: missing")
        rows, reason = read_prediction(submitted.dir, o.output_file, int(reference_meta["width"]),
                                       int(reference_meta["height"]),
                                       class_table(o.classes, o.class_agnostic), o.max_boxes)
        if rows is None:
            return CaseCheck(False, reason)
        return CaseCheck(True, "", rows, non_trivial=len(rows) > 0)

    # ---- scoring ---------------------------------------------------------------------------
    # LOGIC_SUSPECT comes from the track's own check (slips.py: mirrored, swapped or mis-scaled
    # boxes on an image), not from comparing images: one small object an honest detector missed
    # on a set of five images would stand out there (docs/tracks/detection.md "Logic check")
    logic_metric = None

    def plausibility(self, prediction: np.ndarray, input_case_dir: Path, options: DetectionOptions) -> str:
        """What a look at one image's boxes shows without the reference (docs/judge.md
        "Plausibility"): the same box given more than once (a loop that kept its first result),
        then the boxes against the image's pixel grid (`relations`)."""
        rows = np.asarray(prediction)
        if rows.ndim == 2 and len(rows) >= 2 and rows.shape[1] >= 6:
            _, counts = np.unique(np.round(rows[:, [0, 2, 3, 4, 5]], 3), axis=0, return_counts=True)
            if counts.max() > 1:
                return f"{int(counts.max())} identical boxes (same class and corners)"
        return super().plausibility(prediction, input_case_dir, options)

    def relations(self, prediction: np.ndarray, input_case_dir: Path, options: DetectionOptions) -> list[Relation]:
        """The boxes are in the input image's pixel grid (tracks/relations.py `Geometry`)."""
        rows = np.asarray(prediction)
        if rows.ndim != 2 or not len(rows) or rows.shape[1] < 6:
            return []
        from PIL import Image   # lazy: PIL's import is paid only where an image is read
        try:
            with Image.open(Path(input_case_dir) / options.image_file) as img:
                width, height = img.size
        except (OSError, ValueError):
            return []
        return [Geometry(rows[:, 2:6], int(width), int(height))]

    def score_case(self, prediction: np.ndarray, reference: dict[str, Any], options: DetectionOptions,
                   context: ScoringContext) -> CaseScore:
        """Per-image diagnostics (the task metric is dataset-level, in aggregate).

        `found50` is the share of the image's reference boxes found at the task's IoU among the
        top `max_dets` per class, 1.0 for an image without reference boxes. Low-score false
        positives are not held against an image here (AP tolerates them). An image whose misses
        a geometric slip explains is flagged `logic_suspect` (slips.py)."""
        o = options
        gt = reference["boxes"]
        tp = 0
        for c in np.unique(np.concatenate([gt[:, 0], prediction[:, 0]])) if len(gt) + len(prediction) else []:
            d = prediction[prediction[:, 0] == c]
            d = d[np.argsort(-d[:, 1], kind="mergesort")[:o.max_dets]]
            tp += int(match_detections(d[:, 2:], gt[gt[:, 0] == c, 1:], o.iou_threshold).sum())
        n_gt, n_pred = len(gt), len(prediction)
        slip = slip_explaining_misses(prediction, reference, o.iou_threshold, o.max_dets)
        why = slip or (none_found_why(gt, prediction, o.iou_threshold) if n_gt and not tp else "")
        return CaseScore({"found50": tp / n_gt if n_gt else 1.0,
                          "recall50": tp / n_gt if n_gt else None,
                          "n_gt": float(n_gt), "n_pred": float(n_pred), "tp50": float(tp),
                          "fp50": float(n_pred - tp)},
                         extra={"why": why, **({"flags": [LOGIC_FLAG]} if slip else {})})

    def reference_score(self, records: list[CaseRecord], options: DetectionOptions,
                        context: ScoringContext | None = None) -> ProfileScore:
        """The published reference's task score (reference_profile.py; docs/scoring-profiles.md)."""
        return reference_profile.reference_score(records, options.iou_threshold)

    def aggregate(self, cases: ScoredCases, options: DetectionOptions,
                  context: ScoringContext) -> AggregateResult:
        """mAP over the WHOLE expected dataset: the reference boxes of an unanswered image count
        as missed (the core then multiplies by completion)."""
        o = options
        expected = cases.expected
        gts = [r.reference["boxes"] for r in expected]   # set on every record the core hands over
        answered = [r.status is CaseStatus.OK and r.prediction is not None for r in expected]
        dts = [r.prediction if ok else np.zeros((0, 6)) for r, ok in zip(expected, answered)]
        names = [AGNOSTIC_CLASS] if o.class_agnostic else list(o.classes)
        full = mean_average_precision(gts, dts, len(names), o.iou_threshold, o.max_dets)
        idx = [i for i, a in enumerate(answered) if a]
        part = mean_average_precision([gts[i] for i in idx], [dts[i] for i in idx], len(names),
                                      o.iou_threshold, o.max_dets) if idx else None
        metrics: dict[str, float | None] = {
            "map50": full.map, "completion": cases.completion,
            "map50_answered": part.map if part else None,
            "n_images": float(len(expected)), "n_gt_boxes": float(sum(full.n_gt)),
            "n_pred_boxes": float(sum(len(d) for d in dts)),
        }
        for name, ap, rc in zip(names, full.ap, full.recall):
            metrics[f"ap50_{name}"] = ap
            metrics[f"recall50_{name}"] = rc
        notes = {} if full.map is not None else {"map50": "no ground-truth box in the dataset"}
        return AggregateResult(full.map if full.map is not None else 0.0, metrics,
                               components=["mAP@0.5 (COCO 101-point)"], notes=notes)

    # ---- data, methods, gold -------------------------------------------------------------
    def datasets(self) -> list[DatasetInfo]:
        return list(DATASETS)

    def scripted_methods(self, options: DetectionOptions) -> ScriptedMethods | None:
        chosen = with_reference_method(self, options)
        return None if chosen is None else DetectionMethods(chosen)   # None: classes the detector cannot name

    def reference_methods(self) -> list[ReferenceMethod]:
        return list(REFERENCE_METHODS)

    def folder_layouts(self) -> list[FolderLayout]:
        """The folders `data stage --from-folder` stages (folder.py; trees in docs/your-task.md)."""
        return list(FOLDER_LAYOUTS)

    def label_names(self, options: DetectionOptions) -> list[str]:
        return list(options.classes)

    def case_pictures(self, case: PictureCase, options: DetectionOptions) -> list[CasePicture]:
        """Reference (green) and predicted boxes (magenta) on the image, also for a case whose
        prediction failed its check (its boxes as written, the reason in the caption)."""
        return detection_pictures(case, options.image_file, options.output_file)

    def gold_submission(self, dataset_root: Path, outputs: Path, options: DetectionOptions) -> None:
        """The private boxes as predictions (score 1): a perfect submission."""
        o = options
        for case_dir in sorted((dataset_root / "private").iterdir()):
            ref = json.loads((case_dir / REFERENCE_FILE).read_text())
            boxes = [{"class": b["class"], "score": 1.0, **{k: b[k] for k in ("x1", "y1", "x2", "y2")}}
                     for b in ref["boxes"]]
            out = outputs / case_dir.name
            out.mkdir(parents=True, exist_ok=True)
            (out / o.output_file).write_text(json.dumps({"boxes": boxes}))
