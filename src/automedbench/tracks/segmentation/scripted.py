"""Code the built-in scripted agents send for segmentation tasks (tracks.base.ScriptedMethods).

reference: writes the classical method (methods/<reference_method> + brain_common.py, or
intensity_classes.py + its intensity_classes.json from track_options) into the workspace, checks one input, pilots ONE case and inspects it, runs the batch, verifies.
careless: the same method, no pilot, and a realistic bug — every other case gets its z axis
reversed in the voxel array while the affine is kept (a classic orientation error), which the
score must name (LOGIC_SUSPECT on those cases).
"""
from __future__ import annotations

import json
import textwrap
from importlib import resources

from ..scripted_code import case_dirs, per_case_batch, per_case_pilot
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

    def setup_code(self, data_dir: str) -> str:
        assert self.options.reference_method
        o = self.options
        files = {"method.py": _source(o.reference_method or GENERIC_METHOD), **{n: _source(n) for n in METHOD_SUPPORT}}
        if o.reference_method == GENERIC_METHOD:   # its settings come from the task (method docstring)
            files[GENERIC_METHOD.replace(".py", ".json")] = json.dumps(
                {"variant": o.variant, "organ_file": o.organ_file, "lesion_file": o.lesion_file,
                 "label_file": o.label_file, "labels": sorted(o.labels)})
        return textwrap.dedent(f"""\
            # S2 setup: install the method, check the runtime and one input
            import pathlib, numpy, scipy, nibabel as nib
            for name, text in {files!r}.items():
                pathlib.Path(name).write_text(text)
            print("numpy", numpy.__version__, "scipy", scipy.__version__, "nibabel", nib.__version__)
            first = {case_dirs(data_dir)}[0] / {self.input_file!r}
            img = nib.load(str(first))
            data = img.get_fdata(dtype="float32")
            print("input", first.parent.name, "shape", data.shape, "dtype", img.get_data_dtype(),
                  "spacing", img.header.get_zooms(), "p1/p99", numpy.percentile(data, [1, 99]).round(2))
            """)

    def pilot_code(self, data_dir: str) -> str:
        return per_case_pilot(data_dir, "method.py", input_file=self.input_file)

    def inspect_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 inspect the pilot output against its input
            import pathlib, numpy as np, nibabel as nib
            case = {case_dirs(data_dir)}[0]
            src = nib.load(str(case / {self.input_file!r}))
            for f in {self.outputs!r}:
                img = nib.load(f"outputs/{{case.name}}/{{f}}")
                out = np.asarray(img.dataobj)
                fg = np.argwhere(out > 0)
                values, counts = np.unique(out, return_counts=True)
                print(f, "shape", out.shape, "input", src.shape, "voxels per value", dict(zip(values.tolist(), counts.tolist())),
                      "foreground", len(fg), "centre (voxels)", fg.mean(axis=0).round(1) if len(fg) else "-")
                assert out.shape == src.shape, "shape mismatch"
                assert np.allclose(img.affine, src.affine, atol=1e-3), "affine mismatch"
            """)

    def batch_code(self, data_dir: str, careless: bool) -> str:
        flip = """\
            if i % 2 == 0:  # (bug) 'fix' slice order on every other case: reverses the z axis
                for f in out.iterdir():
                    img = nib.load(str(f)); vol = np.asarray(img.dataobj)
                    nib.save(nib.Nifti1Image(np.ascontiguousarray(vol[:, :, ::-1]), img.affine), str(f))
            """ if careless else ""
        return per_case_batch(data_dir, "method", "method.py", "import numpy as np, nibabel as nib", flip,
                              input_file=self.input_file)

    def verify_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S5 verify every case before submitting
            import pathlib
            cases = [p.name for p in {case_dirs(data_dir)}]
            missing = [(c, f) for c in cases for f in {self.outputs!r} if not (pathlib.Path('outputs') / c / f).is_file()]
            print(len(cases), 'cases;', 'missing:', missing or 'none')
            """)

