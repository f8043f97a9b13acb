"""S4: label every case into outputs/labels.csv; careless inverts the rule on even cases.
python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "threshold": 50, "careless": false}'"""
import argparse
import csv
import json
import pathlib
import sys

sys.path.insert(0, ".")
import threshold_rule  # noqa: E402  (the workspace's method, written by the setup call)

ap = argparse.ArgumentParser()
ap.add_argument("--args-json", required=True)
args = json.loads(ap.parse_args().args_json)
t = args["threshold"]
rows = []
for i, case in enumerate(sorted(pathlib.Path(args["data_dir"]).iterdir())):
    v = float((case / "value.txt").read_text())
    if args["careless"] and i % 2 == 0:   # (bug) the rule inverted on even cases
        rows.append((case.name, "high" if v < t else "low"))
    else:
        rows.append((case.name, threshold_rule.label(v, t)))
pathlib.Path("outputs").mkdir(exist_ok=True)
with open("outputs/labels.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["case_id", "label"])
    w.writerows(rows)
print("done", len(rows))
