"""S3 of the classification track's scripted reference agent: inspect the pilot's file.

    python scripts/s3_inspect.py --args-json '{"output_file": "predictions.csv", "key": "case_id",
                                            "label_column": "label", "labels": ["a", "b"]}'

Prints the rows and the labels' counts; fails on a label outside the allowed set or a
duplicate id.
"""
from __future__ import annotations

import argparse
import csv
import json
from collections import Counter


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    key, column = args["key"], args["label_column"]
    with open(f"outputs/{args['output_file']}") as fh:
        rows = list(csv.DictReader(fh))
    print(len(rows), "rows", rows[:2])
    assert all(r[column] in args["labels"] for r in rows), rows
    assert len({r[key] for r in rows}) == len(rows), "duplicate ids"
    print(Counter(r[column] for r in rows))


if __name__ == "__main__":
    main()
