"""S3 pilot of the classification track's scripted reference agent: classify ONE case.

    python scripts/s3_pilot.py --args-json '{"data_dir": "/data/public", "module": "patch_classifier",
        "image_file": "image.png", "output_file": "predictions.csv", "key": "case_id", "label_column": "label"}'

Imports the classifier (`module`, in the workspace) and writes the first case's label into
outputs/<output_file> (a header and one row).
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
    cases = sorted(p for p in pathlib.Path(data).iterdir() if p.is_dir() and not p.name.startswith("_"))[:1]
    labels = method.classify(data, cases, args["image_file"])
    pathlib.Path("outputs").mkdir(exist_ok=True)
    with open(f"outputs/{args['output_file']}", "w", newline="") as fh:
        csv.writer(fh).writerows([(args["key"], args["label_column"]), *zip([c.name for c in cases], labels)])
    print("pilot rows written:", len(cases))


if __name__ == "__main__":
    main()
