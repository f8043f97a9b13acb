"""The calls the built-in scripted agents send for the enhancement track: the step scripts in
methods/steps/ (and the shared pilot), run with JSON arguments (tracks/scripted_code.py).

reference: writes methods/enhance_classical.py (TV denoising / cubic + back-projection SR,
numpy + scipy) into the workspace, checks one input, pilots ONE case, inspects it against
its input, runs every case, verifies every output.
careless: the same method, but on every other case it saves the image it normalised to
[0, 1] for processing without mapping it back to the input's units (HU) — a classic
intensity-scaling bug. SSIM (data range from the reference) collapses on exactly those cases,
so the per-case scores and LOGIC_SUSPECT name them.
"""
from __future__ import annotations

from ..scripted_code import SHARED, launch, method_source
from .options import EnhancementOptions

METHOD_FILE = "enhance_classical.py"


class EnhancementMethods:
    def __init__(self, options: EnhancementOptions) -> None:
        self.options = options

    def plan_steps(self) -> list[str]:
        what = ("total-variation denoising (Chambolle) of the low-dose CT in HU"
                if self.options.variant == "denoise"
                else f"cubic-spline x{self.options.scale} up-sampling + iterative back-projection "
                     "with the known block-average model")
        return ["Inspect one input: shape, dtype, HU/intensity range, info.json output_shape.",
                f"Method: {what} (numpy/scipy, no weights).",
                "Pilot ONE case; check output shape, finiteness, range vs input; compare noise/sharpness.",
                f"Run every case into outputs/<case_id>/{self.options.output_file}.",
                "Verify every case has a finite float array of the expected shape, then submit."]

    def setup_code(self, data_dir: str) -> str:
        return launch("S2 setup: write the method, check the runtime and ONE input", __package__, "s2_setup.py",
                      {"data_dir": data_dir, "input_file": self.options.input_file},
                      {METHOD_FILE: method_source(__package__, METHOD_FILE)})

    def pilot_code(self, data_dir: str) -> str:
        return launch("S3 pilot ONE case end to end", SHARED, "s3_pilot.py",
                      {"data_dir": data_dir, "method": METHOD_FILE, "input_file": None})

    def inspect_code(self, data_dir: str) -> str:
        return launch("S3 inspect the pilot output against its input", __package__, "s3_inspect.py",
                      {"data_dir": data_dir, "input_file": self.options.input_file,
                       "output_file": self.options.output_file})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 inference on every case (one process, the method imported once)", __package__, "s4_batch.py",
                      {"data_dir": data_dir, "output_file": self.options.output_file, "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        return launch("S5 verify every case before submitting", __package__, "s5_verify.py",
                      {"data_dir": data_dir, "output_file": self.options.output_file})
