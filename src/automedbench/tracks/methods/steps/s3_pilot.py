"""S3 pilot of a per-case method: run it on ONE case, the first case folder, end to end.

    python scripts/s3_pilot.py --args-json '{"data_dir": "/data/public", "method": "method.py",
                                          "input_file": "image.nii.gz", "extra": []}'

Runs `python <method> <case>[/<input_file>] outputs/<case_id> <extra...>` and prints what it
printed and its exit status. `input_file` null: the method gets the case folder.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    case = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))[0]
    target = case / args["input_file"] if args.get("input_file") else case
    r = subprocess.run([sys.executable, args["method"], str(target), f"outputs/{case.name}", *args.get("extra", [])],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    print("pilot exit", r.returncode)


if __name__ == "__main__":
    main()
