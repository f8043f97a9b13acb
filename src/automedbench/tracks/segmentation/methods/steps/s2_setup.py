"""S2 setup of the segmentation track's scripted agents: check the runtime and ONE input.

    python scripts/s2_setup.py --args-json '{"data_dir": "/data/public", "input_file": "image.nii.gz"}'

(The method's files are written by the call that runs this script.) Prints the versions of
numpy, scipy and nibabel, and the first case's input: shape, dtype, spacing, 1st/99th percentiles.
"""
from __future__ import annotations

import argparse
import json
import pathlib
from typing import cast

import nibabel as nib
import numpy
import scipy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    print("numpy", numpy.__version__, "scipy", scipy.__version__, "nibabel", nib.__version__)
    cases = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))
    first = cases[0] / args["input_file"]
    img = cast(nib.Nifti1Image, nib.load(str(first)))
    data = img.get_fdata(dtype="float32")
    print("input", first.parent.name, "shape", data.shape, "dtype", img.get_data_dtype(),
          "spacing", img.header.get_zooms(), "p1/p99", numpy.percentile(data, [1, 99]).round(2))


if __name__ == "__main__":
    main()
