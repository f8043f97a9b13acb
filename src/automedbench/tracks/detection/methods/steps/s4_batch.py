"""S4 of the detection track's scripted agents: the detector on every case, in one process.

    python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "module": "marker_detector",
        "image_file": "image.png", "output_file": "prediction.json", "as_class": null, "careless": false}'

Imports the detector (`module`, in the workspace) once; every box gets `as_class` when set.
careless: true is the careless agent's bug: it "converts to COCO format", writing width and
height where x2 and y2 belong.
"""
from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import sys

import numpy as np
from PIL import Image


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    sys.path.insert(0, ".")
    method = importlib.import_module(args["module"])
    cases = sorted(p for p in pathlib.Path(args["data_dir"]).iterdir() if p.is_dir() and not p.name.startswith("_"))
    for case in cases:
        img = np.asarray(Image.open(case / args["image_file"]).convert("L"), dtype=np.float32) / 255.0
        boxes = method.detect(img)
        if args["as_class"]:
            boxes = [{**b, "class": args["as_class"]} for b in boxes]
        if args["careless"]:
            for b in boxes:  # (bug) "COCO format": width/height written where x2/y2 belong
                b["x2"], b["y2"] = b["x2"] - b["x1"], b["y2"] - b["y1"]
        out = pathlib.Path("outputs") / case.name
        out.mkdir(parents=True, exist_ok=True)
        (out / args["output_file"]).write_text(json.dumps({"boxes": boxes}))
    print("done", len(cases), "cases")


if __name__ == "__main__":
    main()
