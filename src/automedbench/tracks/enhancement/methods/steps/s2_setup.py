"""S2 setup of the enhancement track's scripted agents: check the runtime and ONE input.

    python scripts/s2_setup.py --args-json '{"data_dir": "/data/public", "input_file": "low_dose.npy"}'

(The method's file is written by the call that runs this script.) Prints the versions of numpy
and scipy, the first case's input (shape, dtype, 1st/99th percentiles) and its info.json.
"""
from __future__ import annotations

import argparse
import json
import pathlib

import numpy
import scipy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    print("numpy", numpy.__version__, "scipy", scipy.__version__)
    case = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))[0]
    x = numpy.load(case / args["input_file"])
    info = json.loads((case / "info.json").read_text())
    print("input", case.name, "shape", x.shape, "dtype", x.dtype, "p1/p99", numpy.percentile(x, [1, 99]).round(3))
    print("info", info)


if __name__ == "__main__":
    main()
