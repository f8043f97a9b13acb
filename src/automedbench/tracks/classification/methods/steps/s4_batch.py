"""S4 of the classification track's scripted agents: classify every case into one cohort file.

    python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "module": "patch_classifier",
        "image_file": "image.png", "output_file": "predictions.csv", "key": "case_id",
        "label_column": "label", "careless": false}'

careless: true is the careless agent's bug: class ids treated as 1-based, so every label is
written as the next class's.
"""
from __future__ import annotations

import argparse
import csv
import importlib
import json
import pathlib
import sys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    sys.path.insert(0, ".")
    method = importlib.import_module(args["module"])
    data = args["data_dir"]
    cases = sorted(p for p in pathlib.Path(data).iterdir() if p.is_dir() and not p.name.startswith("_"))
    preds = method.classify(data, cases, args["image_file"])
    classes = sorted(set(preds))
    if args["careless"]:   # (bug) ids treated as 1-based
        rows = [(c.name, classes[(classes.index(p) + 1) % len(classes)]) for c, p in zip(cases, preds)]
    else:
        rows = [(c.name, p) for c, p in zip(cases, preds)]
    pathlib.Path("outputs").mkdir(exist_ok=True)
    with open(f"outputs/{args['output_file']}", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([args["key"], args["label_column"]])
        w.writerows(rows)
    print("done", len(rows), "cases")


if __name__ == "__main__":
    main()
