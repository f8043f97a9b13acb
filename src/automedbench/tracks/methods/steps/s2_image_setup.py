"""S2 setup for a track whose cases hold one 2-D image: check the runtime and ONE input.

    python scripts/s2_image_setup.py --args-json '{"data_dir": "/data/public", "image_file": "image.png",
                                                "examples": "_examples/labels.csv"}'

(The method's file is written by the call that runs this script.) Prints the versions of
numpy, scipy and Pillow and the first case's image: size, mode, dtype, value range. With
`examples` (a CSV with a `label` column under the data folder, or null): how many labelled
examples are published and their labels.
"""
from __future__ import annotations

import argparse
import csv
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
    data = pathlib.Path(args["data_dir"])
    first = sorted(p for p in data.iterdir() if p.is_dir() and not p.name.startswith("_"))[0] / args["image_file"]
    im = Image.open(first)
    a = numpy.asarray(im)
    print("input", first.parent.name, "size", im.size, "mode", im.mode, "dtype", a.dtype,
          "range", int(a.min()), int(a.max()))
    if args.get("examples"):
        examples = data / args["examples"]
        rows: list[dict[str, str]] = []
        if examples.is_file():
            with open(examples) as fh:
                rows = list(csv.DictReader(fh))
        print(len(rows), "labelled examples:", sorted({r["label"] for r in rows}) or "none (the method needs them)")


if __name__ == "__main__":
    main()
