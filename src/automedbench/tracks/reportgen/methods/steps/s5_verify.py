"""S5 of the report-generation track's scripted reference agent: every study has its report.

    python scripts/s5_verify.py --args-json '{"data_dir": "/data/public", "output_file": "report.txt"}'
"""
from __future__ import annotations

import argparse
import json
import pathlib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    data = pathlib.Path(args["data_dir"])
    expected = sorted(p.name for p in data.iterdir() if (p / "manifest.json").is_file())
    missing = [s for s in expected if not (pathlib.Path("outputs") / s / args["output_file"]).is_file()]
    print(len(expected) - len(missing), "of", len(expected), "reports written; missing:", missing)


if __name__ == "__main__":
    main()
