"""S5 of the synthesis track's scripted reference agent: every output on its target grid.

    python scripts/s5_verify.py --args-json '{"data_dir": "/data/public", "output_file": "thin.nii.gz"}'
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
    bad = []
    for case in sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_")):
        f = pathlib.Path("outputs") / case.name / args["output_file"]
        grid = json.loads((case / "target_grid.json").read_text())
        if not f.is_file():
            bad.append((case.name, "missing"))
            continue
        img = cast(nib.Nifti1Image, nib.load(str(f)))
        if list(img.shape) != grid["shape"] or not np.allclose(img.affine, grid["affine"], atol=1e-4):
            bad.append((case.name, "grid"))
    print("problems:", bad or "none")


if __name__ == "__main__":
    main()
