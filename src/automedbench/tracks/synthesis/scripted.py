"""The calls the built-in scripted agents send for the synthesis track (z-SR): the step scripts in
methods/steps/ (and the shared pilot), run with JSON arguments (tracks/scripted_code.py).

reference: writes methods/zsr_classical.py (cubic spline along z + iterative back-projection
with the slab-average model), checks one input and its target grid, pilots ONE case,
inspects it (shape AND affine against target_grid.json), runs every case, verifies.
careless: the same method, but on every other case it saves the volume with the INPUT's
header (affine of the thick-slice grid) — a classic "copy the input header" bug; those cases
fail the format check with a reason naming the affine, the others score normally.
"""
from __future__ import annotations

from ..scripted_code import SHARED, launch, method_source
from .options import SynthesisOptions

METHOD_FILE = "zsr_classical.py"


class SynthesisMethods:
    def __init__(self, options: SynthesisOptions) -> None:
        self.options = options

    def plan_steps(self) -> list[str]:
        return ["Inspect one input: shape, voxel spacing (affine), intensity range, target_grid.json.",
                f"Method: cubic-spline interpolation along z + iterative back-projection with the "
                f"x{self.options.scale} slab-average model (numpy/scipy/nibabel, no weights).",
                "Pilot ONE case; check shape and affine equal the target grid, finite values, range.",
                f"Run every case into outputs/<case_id>/{self.options.output_file}.",
                "Verify every output's shape and affine against its target grid, then submit."]

    def setup_code(self, data_dir: str) -> str:
        return launch("S2 setup: write the method, check the runtime and ONE input", __package__, "s2_setup.py",
                      {"data_dir": data_dir, "input_file": self.options.input_file},
                      {METHOD_FILE: method_source(__package__, METHOD_FILE)})

    def pilot_code(self, data_dir: str) -> str:
        return launch("S3 pilot ONE case end to end", SHARED, "s3_pilot.py",
                      {"data_dir": data_dir, "method": METHOD_FILE, "input_file": None})

    def inspect_code(self, data_dir: str) -> str:
        return launch("S3 inspect the pilot output against its input and target grid", __package__, "s3_inspect.py",
                      {"data_dir": data_dir, "input_file": self.options.input_file,
                       "output_file": self.options.output_file})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 inference on every case (one process, the method imported once)", __package__, "s4_batch.py",
                      {"data_dir": data_dir, "input_file": self.options.input_file,
                       "output_file": self.options.output_file, "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        return launch("S5 verify every case before submitting", __package__, "s5_verify.py",
                      {"data_dir": data_dir, "output_file": self.options.output_file})
