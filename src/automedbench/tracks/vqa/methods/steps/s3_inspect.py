"""S3 of the VQA track's scripted reference agent: the pilot's answer.json against its question.

    python scripts/s3_inspect.py --args-json '{"data_dir": "/data/public", "answer_file": "answer.json"}'

Prints the question and the answer; fails when the answer names another question, its label is
not among the options, it is a placeholder or its raw model output is empty.
"""
from __future__ import annotations

import argparse
import json
import pathlib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    out = sorted(pathlib.Path("outputs").iterdir())[0]
    a = json.loads((out / args["answer_file"]).read_text())
    q = json.loads((pathlib.Path(args["data_dir"]) / out.name / "question.json").read_text())
    print("question:", q["question"])
    print("answer:", a)
    assert a["question_id"] == q["question_id"], "question_id mismatch"
    if q.get("options"):
        assert a["predicted_label"] in q["options"], "label not among the options"
    assert a["predicted_answer"].strip().lower() not in ("", "unknown", "n/a"), "placeholder answer"
    assert a["raw_model_output"].strip(), "raw_model_output is empty"
    print("pilot answer looks valid")


if __name__ == "__main__":
    main()
