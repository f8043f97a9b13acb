"""S3: label ONE case into outputs/pilot.txt.
python scripts/s3_pilot.py --args-json '{"data_dir": "/data/public", "threshold": 50}'"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, ".")
import threshold_rule  # noqa: E402  (the workspace's method, written by the setup call)

ap = argparse.ArgumentParser()
ap.add_argument("--args-json", required=True)
args = json.loads(ap.parse_args().args_json)
first = sorted(pathlib.Path(args["data_dir"]).iterdir())[0]
v = float((first / "value.txt").read_text())
pathlib.Path("outputs").mkdir(exist_ok=True)
pathlib.Path("outputs/pilot.txt").write_text(threshold_rule.label(v, args["threshold"]))
print("pilot", first.name, v)
