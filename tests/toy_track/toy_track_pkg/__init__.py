"""A complete track in one file, as a third-party package would ship it (test-only).

Cohort layout: one `labels.csv` (case_id,label) for the whole cohort; task score = accuracy.
Registered through the `automedbench.tracks` entry point in toy_track_pkg-0.1.dist-info, so
no core file knows it exists.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from automedbench.data import DatasetPaths, write_manifest
from automedbench.data import DatasetInfo
from automedbench.tracks.base import (AggregateResult, CaseCheck, CaseScore, MedalBands, OutputFile, ScoredCases,
                                      ScoringContext, SubmissionLayout, SubmittedCase, Track, TrackWording)
from automedbench.tracks.reducers import mean_over_cases
from automedbench.tracks.scripted_code import launch, method_source

LABELS = ("low", "high")


class ToyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    threshold: float = 50


def build_toy_values(paths: DatasetPaths, progress=None, n_cases: int = 6, seed: int = 0) -> dict:
    values = [(seed * 7 + 13 * i + 20) % 100 for i in range(n_cases)]
    cases = []
    for i, v in enumerate(values):
        cid = f"case_{i:03d}"
        (paths.public / cid).mkdir(parents=True)
        (paths.public / cid / "value.txt").write_text(f"{v}\n")
        (paths.private / cid).mkdir(parents=True)
        (paths.private / cid / "label.txt").write_text("high" if v > 50 else "low")
        cases.append({"case_id": cid, "label": "high" if v > 50 else "low"})
    return write_manifest(paths, dataset="toy-values", description="toy numbers", cases=cases,
                          provenance={"seed": seed, "generator": "toy"})


class ToyMethods:
    def __init__(self, options: ToyOptions):
        self.threshold = options.threshold

    def plan_steps(self) -> list[str]:
        return ["Read each value.txt.", "Label high above the threshold.", "Pilot one case.",
                "Write outputs/labels.csv.", "Verify every case has a row."]

    # each call copies one of the package's step scripts (methods/steps/) into the workspace and
    # runs it with JSON arguments, as the built-in tracks' do (docs/tracks.md "Scripted methods")
    def setup_code(self, data_dir: str) -> str:
        return launch("S2 setup: install the rule, check one input", __name__, "s2_setup.py", {"data_dir": data_dir},
                      {"threshold_rule.py": method_source(__name__, "threshold_rule.py")})

    def pilot_code(self, data_dir: str) -> str:
        return launch("S3 pilot ONE case", __name__, "s3_pilot.py", {"data_dir": data_dir, "threshold": self.threshold})

    def inspect_code(self, data_dir: str) -> str:
        return launch("S3 inspect the pilot output", __name__, "s3_inspect.py", {})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 inference on every case", __name__, "s4_batch.py",
                      {"data_dir": data_dir, "threshold": self.threshold, "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        return launch("S5 verify", __name__, "s5_verify.py", {})


class ToyTrack(Track[ToyOptions]):
    name = "toy-threshold"
    options_model = ToyOptions
    runtime_packages: tuple[str, ...] = ()
    tasks_dir = Path(__file__).parent / "tasks"
    wording = TrackWording(input_properties="value and its type")

    def submission(self, options: ToyOptions) -> SubmissionLayout:
        return SubmissionLayout(kind="cohort", cohort_format="csv", key="case_id", columns=["label"],
                                files=[OutputFile(name="labels.csv", description="label is `low` or `high`")])

    def metric_name(self, options: ToyOptions) -> str:
        return "accuracy"

    def default_bands(self, options: ToyOptions) -> MedalBands:
        return MedalBands(metric="accuracy", good=0.8, okay=0.5)

    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any], options: ToyOptions):
        return (private_case_dir / "label.txt").read_text().strip(), {}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any], options: ToyOptions) -> CaseCheck:
        label = (submitted.row or {}).get("label", "")
        if label not in LABELS:
            return CaseCheck(False, f"label {label!r} is not one of {list(LABELS)}")
        return CaseCheck(True, "", label)

    def score_case(self, prediction: str, reference: str, options: ToyOptions, context: ScoringContext) -> CaseScore:
        return CaseScore({"correct": float(prediction == reference)})

    def aggregate(self, cases: ScoredCases, options: ToyOptions, context: ScoringContext) -> AggregateResult:
        # the score over the valid cases: the core leaves out reference errors and multiplies by
        # completion (docs/tracks.md); the reported accuracy is over every expected case
        return AggregateResult(score=mean_over_cases(cases.valid, "correct") or 0.0,
                               metrics={"accuracy": mean_over_cases(cases.expected, "correct")})

    def datasets(self) -> list[DatasetInfo]:
        return [DatasetInfo(name="toy-values", description="toy numbers (test-only)", kind="demo",
                            track=self.name, builder=build_toy_values,
                            required_case_fields=("label",), options={"n_cases": "", "seed": ""})]

    def scripted_methods(self, options: ToyOptions) -> ToyMethods:
        return ToyMethods(options)

    def gold_submission(self, dataset_root: Path, outputs: Path, options: ToyOptions) -> None:
        manifest = json.loads((dataset_root / "manifest.json").read_text())
        outputs.mkdir(parents=True, exist_ok=True)
        lines = ["case_id,label"] + [f"{c['case_id']},{c['label']}" for c in manifest["cases"]]
        (outputs / "labels.csv").write_text("\n".join(lines) + "\n")


TRACK = ToyTrack()
