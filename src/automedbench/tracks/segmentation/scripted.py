"""The calls the built-in scripted agents send for segmentation tasks (tracks.base.ScriptedMethods):
the step scripts in methods/steps/, run with JSON arguments (tracks/scripted_code.py).

reference: writes the classical method (methods/<reference_method> + brain_common.py, or
intensity_classes.py + its intensity_classes.json from track_options) into the workspace, checks one input, pilots ONE case and inspects it, runs the batch, verifies.
careless: the same method, no pilot, and a realistic bug — every other case gets its z axis
reversed in the voxel array while the affine is kept (a classic orientation error), which the
score must name (LOGIC_SUSPECT on those cases).
"""
from __future__ import annotations

import json
from importlib import resources

from ..scripted_code import SHARED, launch
from .options import SegmentationOptions

# modules the classical methods import from their own folder; written beside method.py
METHOD_SUPPORT = ("brain_common.py",)
# the method that fits any task of the track (reads its settings from a JSON file beside it)
GENERIC_METHOD = "intensity_classes.py"


def _source(name: str) -> str:
    return resources.files(f"{__package__}.methods").joinpath(name).read_text()


class SegmentationMethods:
    def __init__(self, options: SegmentationOptions, outputs: list[str]):
        self.options = options
        self.input_file = options.input_file
        self.outputs = outputs        # each case's output files: the track's submission layout

    def plan_steps(self) -> list[str]:
        if self.options.reference_method == GENERIC_METHOD:
            return ["Inspect one input: shape, spacing, dtype, intensity percentiles.",
                    "Intensity classes: smooth, 1-D k-means on intensities, classes in order of brightness.",
                    "Pilot ONE case, inspect shape / unique values / voxel counts, fix, re-run.",
                    "Run every case into outputs/<case_id>/.",
                    "Verify every case has valid files, then submit."]
        return ["Inspect one input: shape, spacing, dtype, intensity percentiles.",
                "Brain mask: Otsu threshold, morphology, largest component.",
                "Target labels inside the brain with the classical method (method.py).",
                "Pilot ONE case, inspect shape / unique values / voxel counts, fix, re-run.",
                "Run every case into outputs/<case_id>/.",
                "Verify every case has valid files, then submit."]

    def method_files(self) -> dict[str, str]:
        """The files the setup call installs in the workspace: method.py, its helpers and, for the
        generic method, its settings from the task."""
        assert self.options.reference_method
        o = self.options
        files = {"method.py": _source(o.reference_method or GENERIC_METHOD), **{n: _source(n) for n in METHOD_SUPPORT}}
        if o.reference_method == GENERIC_METHOD:   # its settings come from the task (method docstring)
            files[GENERIC_METHOD.replace(".py", ".json")] = json.dumps(
                {"variant": o.variant, "organ_file": o.organ_file, "lesion_file": o.lesion_file,
                 "label_file": o.label_file, "labels": sorted(o.labels)})
        return files

    def setup_code(self, data_dir: str) -> str:
        return launch("S2 setup: install the method, check the runtime and one input", __package__, "s2_setup.py",
                      {"data_dir": data_dir, "input_file": self.input_file}, self.method_files())

    def pilot_code(self, data_dir: str) -> str:
        return launch("S3 pilot ONE case end to end", SHARED, "s3_pilot.py",
                      {"data_dir": data_dir, "method": "method.py", "input_file": self.input_file})

    def inspect_code(self, data_dir: str) -> str:
        return launch("S3 inspect the pilot output against its input", __package__, "s3_inspect.py",
                      {"data_dir": data_dir, "input_file": self.input_file, "outputs": self.outputs})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 inference on every case (one process, the method imported once)", __package__, "s4_batch.py",
                      {"data_dir": data_dir, "input_file": self.input_file, "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        return launch("S5 verify every case before submitting", __package__, "s5_verify.py",
                      {"data_dir": data_dir, "outputs": self.outputs})
