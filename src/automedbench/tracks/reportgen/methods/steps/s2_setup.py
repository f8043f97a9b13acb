"""S2 setup of the report-generation track's scripted agents: check the runtime and ONE study.

    python scripts/s2_setup.py --args-json '{"data_dir": "/data/public"}'

(The report writer is written by the call that runs this script.) Prints the versions of numpy,
scipy and Pillow, the first study's body part and views, and each view's size and mode.
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
    data = pathlib.Path(args["data_dir"])
    first = sorted(p for p in data.iterdir() if (p / "manifest.json").is_file())[0]
    study = json.loads((first / "manifest.json").read_text())
    print("study", first.name, "body part", study.get("body_part"), "views", len(study["views"]))
    for v in study["views"]:
        im = Image.open(first / v["file"])
        print(v["file"], v.get("view_position"), "size", im.size, "mode", im.mode)


if __name__ == "__main__":
    main()
