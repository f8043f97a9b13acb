"""S3 of the report-generation track's scripted reference agent: read the pilot's report back.

    python scripts/s3_inspect.py --args-json '{"data_dir": "/data/public", "output_file": "report.txt"}'

Prints the first study's report and its manifest's body part and views; fails on an empty
report or one without a FINDINGS section.
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
    first = sorted(p.name for p in data.iterdir() if (p / "manifest.json").is_file())[0]
    text = (pathlib.Path("outputs") / first / args["output_file"]).read_text(encoding="utf-8")
    print(text)
    study = json.loads((data / first / "manifest.json").read_text())
    print("study", first, study.get("body_part"), "views", [v.get("view_position") for v in study["views"]])
    assert text.strip(), "empty report"
    assert "FINDINGS:" in text, "no FINDINGS section"
    print("words:", len(text.split()), "| sections ok")


if __name__ == "__main__":
    main()
