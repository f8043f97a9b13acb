"""S4 of the synthesis track's scripted agents: the method on every case, in one process.

    python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "input_file": "thick.nii.gz",
                                          "output_file": "thin.nii.gz", "careless": false}'

Imports the method (zsr_classical.py, in the workspace) once and calls its `main` for every case
into outputs/<case_id>/. careless: true is the careless agent's bug: on every other case it
re-saves the volume with the input's header (the thick-slice affine).
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
import zsr_classical as method  # noqa: E402  (the workspace's method, written by the setup call)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    data = pathlib.Path(args["data_dir"])
    name = args["output_file"]
    cases = [p.name for p in sorted(p for p in data.iterdir() if p.is_dir() and not p.name.startswith("_"))]
    for i, cid in enumerate(cases):
        out = pathlib.Path("outputs") / cid
        code = method.main(["zsr_classical.py", str(data / cid), str(out)])
        print(cid, "exit", code)
        if args["careless"] and i % 2 == 0:  # (bug) re-save with the input's header (thick-slice affine)
            src = cast(nib.Nifti1Image, nib.load(str(data / cid / args["input_file"])))
            vol = np.asarray(cast(nib.Nifti1Image, nib.load(str(out / name))).dataobj)
            nib.save(nib.Nifti1Image(vol, src.affine), str(out / name))
    print("done", len(cases), "cases")


if __name__ == "__main__":
    main()
