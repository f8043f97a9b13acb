"""S5 of the classification track's scripted reference agent: one row per case, allowed labels only.

    python scripts/s5_verify.py --args-json '{"data_dir": "/data/public", "output_file": "predictions.csv",
                                           "key": "case_id", "label_column": "label", "labels": ["a", "b"]}'
"""
from __future__ import annotations

import argparse
import csv
import json
import pathlib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    cases = {p.name for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_")}
    with open(f"outputs/{args['output_file']}") as fh:
        rows = list(csv.DictReader(fh))
    ids = [r[args["key"]] for r in rows]
    bad = [r for r in rows if r[args["label_column"]] not in args["labels"]]
    print(len(cases), "cases,", len(rows), "rows; missing:", sorted(cases - set(ids))[:5] or "none",
          "duplicates:", len(ids) - len(set(ids)), "bad labels:", len(bad))


if __name__ == "__main__":
    main()
