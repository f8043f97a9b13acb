"""S3 of the detection track's scripted reference agent: the pilot's boxes against its image.

    python scripts/s3_inspect.py --args-json '{"data_dir": "/data/public", "image_file": "image.png",
                                            "output_file": "prediction.json", "classes": ["marker", "ring"]}'

Prints every box of the first case; fails on a box outside the image, a score outside [0, 1]
or a class the task does not name.
"""
from __future__ import annotations

import argparse
import json
import pathlib

from PIL import Image


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    case = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))[0]
    w, h = Image.open(case / args["image_file"]).size
    boxes = json.loads((pathlib.Path("outputs") / case.name / args["output_file"]).read_text())["boxes"]
    for b in boxes:
        print(b)
        assert 0 <= b["x1"] < b["x2"] <= w and 0 <= b["y1"] < b["y2"] <= h, "box outside the image"
        assert 0 <= b["score"] <= 1 and b["class"] in args["classes"]
    print(len(boxes), "boxes OK for a", w, "x", h, "image")


if __name__ == "__main__":
    main()
