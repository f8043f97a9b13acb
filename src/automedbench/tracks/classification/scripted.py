"""The calls the built-in scripted agents send on classification tasks: the step scripts in
methods/steps/ (and the shared image setup), run with JSON arguments (tracks/scripted_code.py).

reference: installs the few-shot nearest-neighbour classifier (methods/patch_classifier.py),
           checks one input and the published labelled examples, pilots it on ONE case (a pilot
           of a few cases is a batch on a small set: docs/judge.md "Units, pilot, batch"),
           inspects its label, classifies every case into outputs/predictions.csv, verifies
           one row per case with allowed labels.
careless:  the same classifier, but it writes class ids through an off-by-one label map
           (ids treated as 1-based), so every label is shifted to the next class — the
           confusion matrix shows the shift and per-class recall collapses.
"""
from __future__ import annotations

from ..scripted_code import SHARED, launch, method_source
from .options import ClassificationOptions


class ClassificationMethods:
    def __init__(self, options: ClassificationOptions):
        self.o = options
        self.method = options.reference_method or ""   # a file in methods/
        self.module = self.method.removesuffix(".py")

    def plan_steps(self) -> list[str]:
        return ["Inspect one input patch (size, channels, range) and the labelled examples in _examples/.",
                "Features: 18 image statistics (colour saturation, intensity percentiles, edges, "
                "texture/speckle, entropy, smoothness), standardised over all public images.",
                "Label = the label of the nearest labelled example (1-NN); no case label is used.",
                "Pilot ONE case; check its label comes from the allowed set.",
                f"Classify every case into outputs/{self.o.output_file} ({self.o.key},{self.o.label_column}).",
                "Verify one row per case, then submit."]

    def _args(self, data_dir: str) -> dict[str, object]:
        o = self.o
        return {"data_dir": data_dir, "module": self.module, "image_file": o.image_file,
                "output_file": o.output_file, "key": o.key, "label_column": o.label_column}

    def setup_code(self, data_dir: str) -> str:
        return launch("S2 setup: install the classifier, check the runtime and one input", SHARED, "s2_image_setup.py",
                      {"data_dir": data_dir, "image_file": self.o.image_file, "examples": "_examples/labels.csv"},
                      {self.method: method_source(__package__, self.method)})

    def pilot_code(self, data_dir: str) -> str:
        return launch(f"S3 pilot: classify ONE case into outputs/{self.o.output_file}", __package__, "s3_pilot.py",
                      self._args(data_dir))

    def inspect_code(self, data_dir: str) -> str:
        o = self.o
        return launch("S3 inspect the pilot file: header, one row per case, labels from the allowed set",
                      __package__, "s3_inspect.py", {"output_file": o.output_file, "key": o.key,
                                                  "label_column": o.label_column, "labels": list(o.labels)})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 classify every case into one cohort file", __package__, "s4_batch.py",
                      {**self._args(data_dir), "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        o = self.o
        return launch("S5 verify: one row per case, allowed labels only", __package__, "s5_verify.py",
                      {"data_dir": data_dir, "output_file": o.output_file, "key": o.key,
                       "label_column": o.label_column, "labels": list(o.labels)})
