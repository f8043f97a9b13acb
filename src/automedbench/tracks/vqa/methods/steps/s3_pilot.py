"""S3 pilot of the VQA track's scripted reference agent: answer ONE question end to end.

    python scripts/s3_pilot.py --args-json '{"data_dir": "/data/public"}'

Imports the answerer (vqa_rules.py, in the workspace) and answers the first question into
outputs/<question_id>/.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, ".")
import vqa_rules  # noqa: E402  (the workspace's answerer, written by the setup call)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    data = pathlib.Path(args["data_dir"])
    first = sorted(p.name for p in data.iterdir() if (p / "question.json").is_file())[0]
    print(vqa_rules.run(data, pathlib.Path("outputs"), only=[first]), "answered:", first)


if __name__ == "__main__":
    main()
