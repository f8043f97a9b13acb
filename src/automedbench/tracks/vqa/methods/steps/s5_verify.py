"""S5 of the VQA track's scripted reference agent: every expected answer exists, parses and names its question.

    python scripts/s5_verify.py --args-json '{"data_dir": "/data/public", "answer_file": "answer.json"}'
"""
from __future__ import annotations

import argparse
import json
import pathlib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    ids = sorted(p.name for p in pathlib.Path(args["data_dir"]).iterdir() if (p / "question.json").is_file())
    bad = []
    for qid in ids:
        f = pathlib.Path("outputs") / qid / args["answer_file"]
        try:
            a = json.loads(f.read_text())
            ok = a.get("question_id") == qid and isinstance(a.get("predicted_answer"), str)
        except (OSError, ValueError):
            ok = False
        if not ok:
            bad.append(qid)
    print(len(ids) - len(bad), "of", len(ids), "answers valid; bad:", bad[:10])


if __name__ == "__main__":
    main()
