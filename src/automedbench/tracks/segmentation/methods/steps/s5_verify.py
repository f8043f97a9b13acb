"""S5 of the segmentation track's scripted reference agent: every case has its output files.

    python scripts/s5_verify.py --args-json '{"data_dir": "/data/public", "outputs": ["label.nii.gz"]}'
"""
from __future__ import annotations

import argparse
import json
import pathlib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    cases = [p.name for p in sorted(p for p in pathlib.Path(args["data_dir"]).iterdir()
                                    if p.is_dir() and not p.name.startswith("_"))]
    missing = [(c, f) for c in cases for f in args["outputs"] if not (pathlib.Path("outputs") / c / f).is_file()]
    print(len(cases), "cases;", "missing:", missing or "none")


if __name__ == "__main__":
    main()
