"""Code the built-in scripted agents send through execute_code for the synthesis track (z-SR).

reference: writes methods/zsr_classical.py (cubic spline along z + iterative back-projection
with the slab-average model), checks one input and its target grid, pilots ONE case,
inspects it (shape AND affine against target_grid.json), runs every case, verifies.
careless: the same method, but on every other case it saves the volume with the INPUT's
header (affine of the thick-slice grid) — a classic "copy the input header" bug; those cases
fail the format check with a reason naming the affine, the others score normally.
"""
from __future__ import annotations

import textwrap
from importlib import resources

from ..scripted_code import case_dirs, per_case_batch, per_case_pilot
from .options import SynthesisOptions

METHOD_FILE = "zsr_classical.py"


def _method_source() -> str:
    return resources.files("automedbench.tracks.synthesis.methods").joinpath(METHOD_FILE).read_text()


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
        return textwrap.dedent(f"""\
            # S2 setup: write the method, check the runtime and ONE input
            import json, pathlib, numpy as np, scipy, nibabel as nib
            pathlib.Path({METHOD_FILE!r}).write_text({_method_source()!r})
            print("numpy", np.__version__, "scipy", scipy.__version__, "nibabel", nib.__version__)
            case = {case_dirs(data_dir)}[0]
            img = nib.load(str(case / {self.options.input_file!r}))
            data = img.get_fdata(dtype=np.float32)
            grid = json.loads((case / "target_grid.json").read_text())
            print("input", case.name, "shape", data.shape, "spacing", img.header.get_zooms(),
                  "p1/p99", np.percentile(data, [1, 99]).round(3))
            print("target shape", grid["shape"], "scale_z", grid["scale_z"])
            """)

    def pilot_code(self, data_dir: str) -> str:
        return per_case_pilot(data_dir, METHOD_FILE)

    def inspect_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 inspect the pilot output against its input and target grid
            import json, pathlib, numpy as np, nibabel as nib
            case = {case_dirs(data_dir)}[0]
            grid = json.loads((case / "target_grid.json").read_text())
            out = nib.load(f"outputs/{{case.name}}/{self.options.output_file}")
            vol = out.get_fdata(dtype=np.float32)
            low = nib.load(str(case / {self.options.input_file!r})).get_fdata(dtype=np.float32)
            print("shape", vol.shape, "target", grid["shape"], "affine ok", np.allclose(out.affine, grid["affine"], atol=1e-4))
            print("finite", bool(np.isfinite(vol).all()), "range in/out", float(low.min()), float(low.max()), float(vol.min()), float(vol.max()))
            assert list(vol.shape) == grid["shape"] and np.allclose(out.affine, grid["affine"], atol=1e-4)
            """)

    def batch_code(self, data_dir: str, careless: bool) -> str:
        bug = f"""\
            if i % 2 == 0:  # (bug) re-save with the input's header (thick-slice affine)
                src = nib.load(str(data / cid / {self.options.input_file!r}))
                vol = np.asarray(nib.load(str(out / {self.options.output_file!r})).dataobj)
                nib.save(nib.Nifti1Image(vol, src.affine), str(out / {self.options.output_file!r}))
            """ if careless else ""
        return per_case_batch(data_dir, METHOD_FILE.removesuffix(".py"), METHOD_FILE,
                              "import numpy as np, nibabel as nib", bug)

    def verify_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S5 verify every case before submitting
            import json, pathlib, numpy as np, nibabel as nib
            bad = []
            for case in {case_dirs(data_dir)}:
                f = pathlib.Path("outputs") / case.name / {self.options.output_file!r}
                grid = json.loads((case / "target_grid.json").read_text())
                if not f.is_file():
                    bad.append((case.name, "missing")); continue
                img = nib.load(str(f))
                if list(img.shape) != grid["shape"] or not np.allclose(img.affine, grid["affine"], atol=1e-4):
                    bad.append((case.name, "grid"))
            print("problems:", bad or "none")
            """)
