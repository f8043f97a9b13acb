"""Classification track (docs/tracks/classification.md): one label per patient/image, task score = accuracy.

The agent writes ONE cohort file, `outputs/predictions.csv`, with a header `patient_id,label`
and one row per case. The core parses it (tracks/cohort.py: duplicate rows and unknown ids are
refused there); this track checks each case's row: an empty or unknown label makes that case
invalid (reason given), and a missing row is a missing case — both count as wrong.
Labels match the task's `labels` after trimming spaces, case-insensitively.

Task score = accuracy over ALL expected cases (missing/invalid = wrong, i.e. accuracy already
includes completion). Aggregate metrics add completion, per-class recall (over the expected
cases of that class), balanced accuracy (mean recall) and the confusion matrix, flattened as
`confusion/<true>/<predicted>` counts with a `(none)` column for missing/invalid rows.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..pictures import CasePicture, PictureCase, not_scored_note, panels, read_png_gray
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
from ..reducers import mean_of_present
from .data import DATASETS
from .folder import LAYOUTS as FOLDER_LAYOUTS
from .options import REFERENCE_FILE, ClassificationOptions
from .scripted import ClassificationMethods
from ..mutants import Mutant
from .mutants import classification_mutants

# the classical methods (docs/your-task.md section 5), tried in this order on a task naming none
REFERENCE_METHODS = [
    ReferenceMethod("patch_classifier.py", "few-shot 1-nearest-neighbour on 18 image statistics against "
                    "labelled examples", "labelled examples in public/_examples/ (labels.csv: file,label)",
                    lambda o: None if o.examples_per_class > 0 else
                    "labelled examples: set `examples_per_class: N` in track_options and re-stage with "
                    "`data stage DATASET --from-folder DIR --task TASK --force`"),
]

if TYPE_CHECKING:
    from ...data import DatasetInfo
    from ...data.from_folder import FolderLayout

NO_PREDICTION = "(none)"


def _index(o: ClassificationOptions) -> dict[str, int]:
    return {x.strip().casefold(): i for i, x in enumerate(o.labels)}


class ClassificationTrack(Track[ClassificationOptions]):
    name = "classification"
    options_model = ClassificationOptions
    runtime_packages = ("numpy", "scipy", "pillow")
    tasks_dir = Path(__file__).with_name("tasks")
    wording = TrackWording(
        rubric={"s1c": "a classifier suited to the image type and the task's label set",
                "s2b": "image size, channels and intensity range of the inputs checked",
                "s3": "the pilot predictions checked: one row per case, labels from the allowed set"},
        skills={"s3": "Classify a few cases first and check every label is one of the allowed labels "
                      "and every case id appears exactly once."},
        input_properties="image size, channels and intensity range")

    def mutants(self, options: ClassificationOptions) -> list[Mutant]:
        """What a look at one output must catch (mutants.py; docs/judge.md \"Experiments\")."""
        return classification_mutants(options)

    def submission(self, options: ClassificationOptions) -> SubmissionLayout:
        o = options
        allowed = ", ".join(o.labels)
        return SubmissionLayout(
            kind="cohort", cohort_format="csv", key=o.key, columns=[o.label_column],
            files=[OutputFile(name=o.output_file, description=(
                f"`{o.key}` = the case folder name, `{o.label_column}` = one of: {allowed}"))],
            notes=("Exactly one row per case. A missing row, an empty or unknown label counts as "
                   "wrong; duplicate rows for a case make that case invalid."))

    def metric_name(self, options: ClassificationOptions) -> str:
        return "accuracy (missing = wrong)"

    def default_bands(self, options: ClassificationOptions) -> MedalBands:
        return MedalBands(metric="score", good=0.80, okay=0.50)

    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any],
                       options: ClassificationOptions) -> tuple[int, dict[str, Any]]:
        o = options
        label = (private_case_dir / REFERENCE_FILE).read_text().strip()
        idx = _index(o).get(label.casefold())
        if idx is None:
            raise ValueError(f"reference label {label!r} is not one of the task's labels")
        return idx, {}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any],
                   options: ClassificationOptions) -> CaseCheck:
        o = options
        row = submitted.row
        if row is None:
            return CaseCheck(False, f"{o.output_file}: no row for this case")
        value = row.get(o.label_column)
        if not isinstance(value, str) or not value.strip():
            return CaseCheck(False, f"{o.output_file}: empty label")
        idx = _index(o).get(value.strip().casefold())
        if idx is None:
            shown = value.strip()[:40]
            return CaseCheck(False, f"{o.output_file}: unknown label {shown!r} (allowed: {', '.join(o.labels)})")
        return CaseCheck(True, "", idx)

    def score_case(self, prediction: int, reference: int, options: ClassificationOptions,
                   context: ScoringContext) -> CaseScore:
        """`correct` (1 or 0) and, when wrong, why: the predicted and the reference label, so
        the run page's per-case table shows which cases were missed (docs/tracks.md). It is no
        bug signal on its own: `logic_metric = None` keeps LOGIC_SUSPECT off it, since one case
        "far below the others" is every honest misclassification. Correctness per class is in
        the aggregate (recall, confusion matrix), where a systematic label shift shows."""
        if prediction == reference:
            return CaseScore({"correct": 1.0})
        labels = options.labels
        return CaseScore({"correct": 0.0}, extra={"why": f"predicted {labels[prediction]}, ground truth {labels[reference]}"})

    # a per-case right/wrong is no signal of a bug on its own; label shifts are found in aggregate
    logic_metric = None

    def aggregate(self, cases: ScoredCases, options: ClassificationOptions,
                  context: ScoringContext) -> AggregateResult:
        """Accuracy over the valid cases (the core multiplies by completion: a missing or
        invalid row is wrong); the confusion matrix counts every expected case, a missing or
        invalid row in the `(none)` column."""
        o = options
        scored = cases.expected
        columns = [*o.labels, NO_PREDICTION]
        counts = {(t, p): 0 for t in o.labels for p in columns}
        truths: list[int] = [r.reference for r in scored]   # set on every record the core hands over
        for r, truth in zip(scored, truths):
            pred = r.prediction if r.status == CaseStatus.OK and r.prediction is not None else None
            counts[(o.labels[truth], o.labels[pred] if pred is not None else NO_PREDICTION)] += 1
        n = len(scored)
        correct = sum(counts[(x, x)] for x in o.labels)
        answered = n - sum(counts[(t, NO_PREDICTION)] for t in o.labels)
        metrics: dict[str, float | None] = {"accuracy": correct / n, "completion": answered / n}
        recalls = []
        for t in o.labels:
            n_t = sum(counts[(t, p)] for p in columns)
            rec = counts[(t, t)] / n_t if n_t else None
            metrics[f"recall/{t}"] = rec
            if rec is not None:
                recalls.append(rec)
        metrics["balanced_accuracy"] = mean_of_present(recalls)
        # naming the most frequent reference class for every case: medal bands start above it
        # (docs/scoring.md "Medals start above chance")
        metrics["chance_level.score"] = max(truths.count(i) for i in set(truths)) / n if n else None
        for (t, p), c in counts.items():
            metrics[f"confusion/{t}/{p}"] = float(c)
        return AggregateResult(correct / answered if answered else 0.0, metrics, components=["accuracy"],
                               notes={"chance_level.score": "the majority class's share of the ground-truth labels (every case "
                                                      "given the most frequent class); the medal bands are read from it up"},
                               flags=_label_shift_flags(scored, truths, counts, o))

    def datasets(self) -> list[DatasetInfo]:
        return list(DATASETS)

    def scripted_methods(self, options: ClassificationOptions) -> ScriptedMethods | None:
        chosen = with_reference_method(self, options)
        return None if chosen is None else ClassificationMethods(chosen)   # None: no labelled examples (official tasks)

    def reference_methods(self) -> list[ReferenceMethod]:
        return list(REFERENCE_METHODS)

    def folder_layouts(self) -> list[FolderLayout]:
        """The folders `data stage --from-folder` stages (folder.py; trees in docs/your-task.md)."""
        return list(FOLDER_LAYOUTS)

    def label_names(self, options: ClassificationOptions) -> list[str]:
        return list(options.labels)

    def case_pictures(self, case: PictureCase, options: ClassificationOptions) -> list[CasePicture]:
        """The image with the predicted and the reference label."""
        gray = read_png_gray(case.public_dir / options.image_file)
        if gray is None:
            return []
        ref = options.labels[int(case.reference)]
        if case.prediction is None:
            return [CasePicture("label.png", panels([(gray, "")]), f"{not_scored_note(case)} · ground truth {ref!r}")]
        pred = options.labels[int(case.prediction)]
        verdict = "correct" if pred == ref else "wrong"
        return [CasePicture("label.png", panels([(gray, "")]), f"predicted {pred!r}, ground truth {ref!r}: {verdict}")]

    def gold_submission(self, dataset_root: Path, outputs: Path, options: ClassificationOptions) -> None:
        o = options
        outputs.mkdir(parents=True, exist_ok=True)
        with open(outputs / o.output_file, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([o.key, o.label_column])
            for case_dir in sorted((dataset_root / "private").iterdir()):
                w.writerow([case_dir.name, (case_dir / REFERENCE_FILE).read_text().strip()])


# a true class whose cases mostly land on ONE other class (a shifted or swapped label map, not
# honest confusion) — at least this share of that class's answered cases, and at least 3 of them
SHIFT_SHARE = 0.6
SHIFT_MIN_CASES = 3


def _label_shift_flags(scored: list[CaseRecord], truths: list[int], counts: dict[tuple[str, str], int],
                       o: ClassificationOptions) -> dict[str, list[str]]:
    shifted: dict[str, str] = {}
    for t in o.labels:
        answered = sum(c for (tt, p), c in counts.items() if tt == t and p != NO_PREDICTION)
        for p in o.labels:
            if p != t and counts[(t, p)] >= SHIFT_MIN_CASES and answered and counts[(t, p)] / answered >= SHIFT_SHARE:
                shifted[t] = p
    if not shifted:
        return {}
    cases = []
    for r, truth in zip(scored, truths):
        t = o.labels[truth]
        if t in shifted and r.status == CaseStatus.OK and r.prediction is not None and o.labels[r.prediction] == shifted[t]:
            cases.append(r.case_id)
    return {"logic_suspect": cases}
