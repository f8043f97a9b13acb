"""S5 of the enhancement track's scripted reference agent: every output a finite array of its shape.

    python scripts/s5_verify.py --args-json '{"data_dir": "/data/public", "output_file": "enhanced.npy"}'
"""
from __future__ import annotations

import argparse
import json
import pathlib

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    bad = []
    for case in sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_")):
        f = pathlib.Path("outputs") / case.name / args["output_file"]
        want = json.loads((case / "info.json").read_text())["output_shape"]
        if not f.is_file():
            bad.append((case.name, "missing"))
            continue
        y = np.load(f)
        if list(y.shape) != want or not np.isfinite(y).all():
            bad.append((case.name, "shape/finite"))
    print("problems:", bad or "none")


if __name__ == "__main__":
    main()
