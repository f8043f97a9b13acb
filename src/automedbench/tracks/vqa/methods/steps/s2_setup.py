"""S2 setup of the VQA track's scripted agents: check the runtime, ONE question and its image.

    python scripts/s2_setup.py --args-json '{"data_dir": "/data/public"}'

(The answerer is written by the call that runs this script.) Prints the versions of numpy, scipy
and Pillow, the first question's id, fields and options, and its image's size and mode.
"""
from __future__ import annotations

import argparse
import json
import pathlib

import numpy
import PIL
import scipy
from PIL import Image


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    print("numpy", numpy.__version__, "scipy", scipy.__version__, "pillow", PIL.__version__)
    first = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if (p / "question.json").is_file())[0]
    q = json.loads((first / "question.json").read_text())
    print("question", q["question_id"], "fields", sorted(q), "options", q.get("options"))
    img = Image.open(first / q["images"][0])
    print("image", q["images"][0], "size", img.size, "mode", img.mode)


if __name__ == "__main__":
    main()
