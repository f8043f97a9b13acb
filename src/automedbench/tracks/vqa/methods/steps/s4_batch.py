"""S4 of the VQA track's scripted agents: answer every question.

    python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "careless": false}'

Imports the answerer (vqa_rules.py, in the workspace) and answers every question into
outputs/<question_id>/. careless: true switches its bug on: questions its rules do not cover get
the placeholder "unknown" and an empty raw_model_output.
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
    n = vqa_rules.run(pathlib.Path(args["data_dir"]), pathlib.Path("outputs"), careless=args["careless"])
    print(n, "questions answered")


if __name__ == "__main__":
    main()
