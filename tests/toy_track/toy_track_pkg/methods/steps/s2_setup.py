"""S2: check one input.  python scripts/s2_setup.py --args-json '{"data_dir": "/data/public"}'"""
import argparse
import json
import pathlib

ap = argparse.ArgumentParser()
ap.add_argument("--args-json", required=True)
args = json.loads(ap.parse_args().args_json)
first = sorted(pathlib.Path(args["data_dir"]).iterdir())[0]
print("input", first.name, (first / "value.txt").read_text().strip(), "dtype", "text")
