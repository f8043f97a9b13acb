"""S3 of the synthesis track's scripted reference agent: the pilot's output against its input and target grid.

    python scripts/s3_inspect.py --args-json '{"data_dir": "/data/public", "input_file": "thick.nii.gz",
                                            "output_file": "thin.nii.gz"}'

Prints the output's shape against the target grid's, whether its affine is the grid's, whether
it is finite and the value ranges in and out; fails when the shape or the affine is not the
target grid's.
"""
from __future__ import annotations

import argparse
import json
import pathlib
from typing import cast

import nibabel as nib
import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    case = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))[0]
    grid = json.loads((case / "target_grid.json").read_text())
    out = cast(nib.Nifti1Image, nib.load(f"outputs/{case.name}/{args['output_file']}"))
    vol = out.get_fdata(dtype=np.float32)
    low = cast(nib.Nifti1Image, nib.load(str(case / args["input_file"]))).get_fdata(dtype=np.float32)
    print("shape", vol.shape, "target", grid["shape"], "affine ok", np.allclose(out.affine, grid["affine"], atol=1e-4))
    print("finite", bool(np.isfinite(vol).all()), "range in/out", float(low.min()), float(low.max()),
          float(vol.min()), float(vol.max()))
    assert list(vol.shape) == grid["shape"] and np.allclose(out.affine, grid["affine"], atol=1e-4)


if __name__ == "__main__":
    main()
