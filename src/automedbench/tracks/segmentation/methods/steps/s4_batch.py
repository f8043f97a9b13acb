"""S4 of the segmentation track's scripted agents: the method on every case, in one process.

    python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "input_file": "image.nii.gz",
                                          "careless": false}'

Imports the method (method.py, in the workspace) once and calls its `main` for every case into
outputs/<case_id>/. careless: true is the careless agent's bug: on every other case it
"fixes the slice order", reversing the z axis of the voxel array while keeping the affine.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import cast

import nibabel as nib
import numpy as np

sys.path.insert(0, ".")
import method  # noqa: E402  (the workspace's method.py, written by the setup call)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    data = pathlib.Path(args["data_dir"])
    cases = [p.name for p in sorted(p for p in data.iterdir() if p.is_dir() and not p.name.startswith("_"))]
    for i, cid in enumerate(cases):
        out = pathlib.Path("outputs") / cid
        code = method.main(["method.py", str(data / cid / args["input_file"]), str(out)])
        print(cid, "exit", code)
        if args["careless"] and i % 2 == 0:  # (bug) 'fix' slice order on every other case: reverses the z axis
            for f in out.iterdir():
                img = cast(nib.Nifti1Image, nib.load(str(f)))
                vol = np.asarray(img.dataobj)
                nib.save(nib.Nifti1Image(np.ascontiguousarray(vol[:, :, ::-1]), img.affine), str(f))
    print("done", len(cases), "cases")


if __name__ == "__main__":
    main()
