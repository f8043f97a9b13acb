"""S4 of the enhancement track's scripted agents: the method on every case, in one process.

    python scripts/s4_batch.py --args-json '{"data_dir": "/data/public", "output_file": "enhanced.npy",
                                          "careless": false}'

Imports the method (enhance_classical.py, in the workspace) once and calls its `main` for every
case into outputs/<case_id>/. careless: true is the careless agent's bug: on every other case it
keeps the image it normalised to [0, 1] instead of mapping it back to the input's units.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, ".")
import enhance_classical as method  # noqa: E402  (the workspace's method, written by the setup call)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--args-json", required=True)
    args = json.loads(ap.parse_args().args_json)
    data = pathlib.Path(args["data_dir"])
    name = args["output_file"]
    cases = [p.name for p in sorted(p for p in data.iterdir() if p.is_dir() and not p.name.startswith("_"))]
    for i, cid in enumerate(cases):
        out = pathlib.Path("outputs") / cid
        code = method.main(["enhance_classical.py", str(data / cid), str(out)])
        print(cid, "exit", code)
        if args["careless"] and i % 2 == 0:  # (bug) keeps the [0, 1]-normalised image instead of the input's units
            y = np.load(out / name)
            np.save(out / name, ((y - y.min()) / (y.max() - y.min())).astype(np.float32))
    print("done", len(cases), "cases")


if __name__ == "__main__":
    main()
