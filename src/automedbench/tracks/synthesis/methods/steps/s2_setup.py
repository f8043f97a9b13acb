"""S2 setup of the synthesis track's scripted agents: check the runtime, ONE input and its target grid.

    python scripts/s2_setup.py --args-json '{"data_dir": "/data/public", "input_file": "thick.nii.gz"}'

(The method's file is written by the call that runs this script.) Prints the versions of numpy,
scipy and nibabel, the first case's input (shape, spacing, 1st/99th percentiles) and its
target_grid.json's shape and z scale.
"""
from __future__ import annotations

import argparse
import json
import pathlib
from typing import cast

import nibabel as nib
import numpy as np
import scipy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    print("numpy", np.__version__, "scipy", scipy.__version__, "nibabel", nib.__version__)
    case = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))[0]
    img = cast(nib.Nifti1Image, nib.load(str(case / args["input_file"])))
    data = img.get_fdata(dtype=np.float32)
    grid = json.loads((case / "target_grid.json").read_text())
    print("input", case.name, "shape", data.shape, "spacing", img.header.get_zooms(),
          "p1/p99", np.percentile(data, [1, 99]).round(3))
    print("target shape", grid["shape"], "scale_z", grid["scale_z"])


if __name__ == "__main__":
    main()
