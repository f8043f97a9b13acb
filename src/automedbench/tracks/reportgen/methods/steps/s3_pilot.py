"""S3 pilot of the report-generation track's scripted reference agent: ONE study end to end.

    python scripts/s3_pilot.py --args-json '{"data_dir": "/data/public"}'

Runs `python report_writer.py DATA outputs --only <first study>` and prints what it printed and
its exit status.
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
    data = pathlib.Path(args["data_dir"])
    first = sorted(p.name for p in data.iterdir() if (p / "manifest.json").is_file())[0]
    r = subprocess.run([sys.executable, "report_writer.py", str(data), "outputs", "--only", first],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    print("pilot exit", r.returncode)


if __name__ == "__main__":
    main()
