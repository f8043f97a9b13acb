"""S3 of the enhancement track's scripted reference agent: the pilot's output against its input.

    python scripts/s3_inspect.py --args-json '{"data_dir": "/data/public", "input_file": "low_dose.npy",
                                            "output_file": "enhanced.npy"}'

Prints the output's shape against info.json's output_shape, whether it is finite, the 1st/99th
percentiles in and out and the high-frequency energy in and out; fails on a wrong shape or a
non-finite value.
"""
from __future__ import annotations

import argparse
import json
import pathlib

import numpy as np


def high_frequency(a: np.ndarray) -> float:
    return float(np.std(np.diff(a, axis=1)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    case = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))[0]
    x = np.load(case / args["input_file"]).astype(float)
    info = json.loads((case / "info.json").read_text())
    y = np.load(f"outputs/{case.name}/{args['output_file']}")
    print("output", y.shape, y.dtype, "expected", info["output_shape"], "finite", bool(np.isfinite(y).all()))
    print("input p1/p99", np.percentile(x, [1, 99]).round(2), "output p1/p99", np.percentile(y, [1, 99]).round(2))
    print("high-frequency energy in/out", round(high_frequency(x), 3), round(high_frequency(y), 3))
    assert list(y.shape) == info["output_shape"] and np.isfinite(y).all()


if __name__ == "__main__":
    main()
