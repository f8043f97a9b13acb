"""S4 of the report-generation track's scripted agents: a report for every study.

    python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "careless": false}'

Runs `python report_writer.py DATA outputs` (with --careless for the careless agent: every study
is taken for a chest film) and prints what it printed and its exit status.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    r = subprocess.run([sys.executable, "report_writer.py", args["data_dir"], "outputs",
                        *(["--careless"] if args["careless"] else [])], capture_output=True, text=True)
    print(r.stdout, r.stderr, "exit", r.returncode)


if __name__ == "__main__":
    main()
