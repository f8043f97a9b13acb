"""S3 of the segmentation track's scripted reference agent: inspect the pilot's output against its input.

    python scripts/s3_inspect.py --args-json '{"data_dir": "/data/public", "input_file": "image.nii.gz",
                                            "outputs": ["organ.nii.gz", "lesion.nii.gz"]}'

For each output file of the first case: its shape against the input's, the voxels per value,
the foreground's size and centre; fails when the shape or the affine differs from the input's.
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
    src = cast(nib.Nifti1Image, nib.load(str(case / args["input_file"])))
    for f in args["outputs"]:
        img = cast(nib.Nifti1Image, nib.load(f"outputs/{case.name}/{f}"))
        out = np.asarray(img.dataobj)
        fg = np.argwhere(out > 0)
        values, counts = np.unique(out, return_counts=True)
        print(f, "shape", out.shape, "input", src.shape, "voxels per value", dict(zip(values.tolist(), counts.tolist())),
              "foreground", len(fg), "centre (voxels)", fg.mean(axis=0).round(1) if len(fg) else "-")
        assert out.shape == src.shape, "shape mismatch"
        assert np.allclose(img.affine, src.affine, atol=1e-3), "affine mismatch"


if __name__ == "__main__":
    main()
