"""Code the built-in scripted agents send through execute_code for the enhancement track.

reference: writes methods/enhance_classical.py (TV denoising / cubic + back-projection SR,
numpy + scipy) into the workspace, checks one input, pilots ONE case, inspects it against
its input, runs every case, verifies every output.
careless: the same method, but on every other case it saves the image it normalised to
[0, 1] for processing without mapping it back to the input's units (HU) — a classic
intensity-scaling bug. SSIM (data range from the reference) collapses on exactly those cases,
so the per-case scores and LOGIC_SUSPECT name them.
"""
from __future__ import annotations

import textwrap
from importlib import resources

from ..scripted_code import case_dirs, per_case_batch, per_case_pilot
from .options import EnhancementOptions

METHOD_FILE = "enhance_classical.py"


def _method_source() -> str:
    return resources.files("automedbench.tracks.enhancement.methods").joinpath(METHOD_FILE).read_text()


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
        return textwrap.dedent(f"""\
            # S2 setup: write the method, check the runtime and ONE input
            import json, pathlib, numpy, scipy
            pathlib.Path({METHOD_FILE!r}).write_text({_method_source()!r})
            print("numpy", numpy.__version__, "scipy", scipy.__version__)
            case = {case_dirs(data_dir)}[0]
            x = numpy.load(case / {self.options.input_file!r})
            info = json.loads((case / "info.json").read_text())
            print("input", case.name, "shape", x.shape, "dtype", x.dtype, "p1/p99", numpy.percentile(x, [1, 99]).round(3))
            print("info", info)
            """)

    def pilot_code(self, data_dir: str) -> str:
        return per_case_pilot(data_dir, METHOD_FILE)

    def inspect_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 inspect the pilot output against its input
            import json, pathlib, numpy as np
            case = {case_dirs(data_dir)}[0]
            x = np.load(case / {self.options.input_file!r}).astype(float)
            info = json.loads((case / "info.json").read_text())
            y = np.load(f"outputs/{{case.name}}/{self.options.output_file}")
            print("output", y.shape, y.dtype, "expected", info["output_shape"], "finite", bool(np.isfinite(y).all()))
            print("input p1/p99", np.percentile(x, [1, 99]).round(2), "output p1/p99", np.percentile(y, [1, 99]).round(2))
            hf = lambda a: float(np.std(np.diff(a, axis=1)))
            print("high-frequency energy in/out", round(hf(x), 3), round(hf(y), 3))
            assert list(y.shape) == info["output_shape"] and np.isfinite(y).all()
            """)

    def batch_code(self, data_dir: str, careless: bool) -> str:
        bug = f"""\
            if i % 2 == 0:  # (bug) keeps the [0, 1]-normalised image instead of the input's units
                y = np.load(out / {self.options.output_file!r})
                np.save(out / {self.options.output_file!r}, ((y - y.min()) / (y.max() - y.min())).astype(np.float32))
            """ if careless else ""
        return per_case_batch(data_dir, METHOD_FILE.removesuffix(".py"), METHOD_FILE, "import numpy as np", bug)

    def verify_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S5 verify every case before submitting
            import json, pathlib, numpy as np
            bad = []
            for case in {case_dirs(data_dir)}:
                f = pathlib.Path("outputs") / case.name / {self.options.output_file!r}
                want = json.loads((case / "info.json").read_text())["output_shape"]
                if not f.is_file():
                    bad.append((case.name, "missing")); continue
                y = np.load(f)
                if list(y.shape) != want or not np.isfinite(y).all():
                    bad.append((case.name, "shape/finite"))
            print("problems:", bad or "none")
            """)
