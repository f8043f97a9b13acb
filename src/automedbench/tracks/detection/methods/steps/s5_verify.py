"""S5 of the detection track's scripted reference agent: every case has a readable prediction.

    python scripts/s5_verify.py --args-json '{"data_dir": "/data/public", "output_file": "prediction.json"}'
"""
from __future__ import annotations

import argparse
import json
import pathlib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    cases = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))
    bad = []
    for case in cases:
        f = pathlib.Path("outputs") / case.name / args["output_file"]
        try:
            json.loads(f.read_text())["boxes"]
        except Exception as exc:   # noqa: BLE001 — any problem is reported, per case
            bad.append((case.name, str(exc)[:80]))
    print(len(cases), "cases;", "problems:", bad or "none")


if __name__ == "__main__":
    main()
