"""What a sandbox's own copy of the public inputs (sandbox/inputs.py, docs/sandbox.md
"Whose reads") adds to opening and closing a sandbox: open + close of a `local` sandbox over
the same public folder with copying on (the default cap) and off (cap 0), interleaved, in
the same run on the same machine, for a demo-sized and a larger folder.

    PYTHONPATH=src python bench/input_copy.py [-n 15]

Prints the median open+close time of each, the added median and the ratio, per size.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from automedbench.sandbox import SandboxSpec, open_sandbox
from automedbench.sandbox.inputs import COPY_MAX_ENV


def make_public(root: Path, cases: int, mib_per_case: float) -> Path:
    public = root / "public"
    for i in range(cases):
        case = public / f"case_{i:03d}"
        case.mkdir(parents=True)
        (case / "image.bin").write_bytes(os.urandom(int(mib_per_case * 2**20)))
    return public


def open_close(public: Path, workspace: Path, cap: str) -> float:
    os.environ[COPY_MAX_ENV] = cap
    t = time.perf_counter()
    box = open_sandbox("local", SandboxSpec(public_dir=public, workspace=workspace))
    box.close()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=15)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="amb-bench-inputs-"))
    try:
        for label, cases, mib in (("demo-sized, 8 cases x 1 MiB", 8, 1.0), ("larger, 40 cases x 5 MiB", 40, 5.0)):
            public = make_public(root / label.split(",")[0], cases, mib)
            copied, shared = [], []
            for i in range(args.n):
                copied.append(open_close(public, root / f"ws{i}a", "512"))
                shared.append(open_close(public, root / f"ws{i}b", "0"))
            mc, ms = statistics.median(copied), statistics.median(shared)
            print(f"{label}: own copy {mc * 1000:.1f} ms, shared {ms * 1000:.1f} ms, "
                  f"added {(mc - ms) * 1000:.1f} ms per sandbox, ratio {mc / ms:.2f}x")
    finally:
        os.environ.pop(COPY_MAX_ENV, None)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
