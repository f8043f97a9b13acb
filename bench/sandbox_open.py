"""CPU of opening and closing a bwrap sandbox (no call), against the way it was opened before
issue 26's fourth pass, in the same run:

    PYTHONPATH=src python bench/sandbox_open.py [-n 20]

baseline: every open read the harness environment's ~200 distributions' metadata again (the
runtime's closure and pins), asked /usr/bin/python3 its version in a subprocess, and copied the
host's /etc/alternatives (~400 symlinks) into the generated /etc. The baseline redoes that
work around each open (caches cleared, the copy made beside it; the old copy was also walked
once more to make it world-readable, which the baseline leaves out); "now" is a plain open.
Interleaved, so machine noise falls on both sides alike."""
from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
from pathlib import Path


def cpu_s() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=20, help="opens per side")
    n = ap.parse_args().n
    if shutil.which("bwrap") is None:
        sys.exit("bubblewrap is not installed (make sysdeps)")
    from automedbench.sandbox import SandboxSpec
    from automedbench.sandbox import runtime
    from automedbench.sandbox.bwrap.backend import BwrapSandbox

    root = Path(tempfile.mkdtemp(prefix="amb-bench-open-"))
    (root / "pub").mkdir(), (root / "ws").mkdir()
    spec = SandboxSpec(public_dir=root / "pub", workspace=root / "ws", network=False, timeout_s=30)
    BwrapSandbox(spec).close()        # the runtime is built (once per machine) before timing

    def now() -> None:
        BwrapSandbox(spec).close()

    def baseline(i: int) -> None:
        runtime._closure.cache_clear()
        runtime._pins.cache_clear()
        runtime.system_python_version.cache_clear()
        if Path("/etc/alternatives").is_dir():
            shutil.copytree("/etc/alternatives", root / f"alternatives-{i}", symlinks=True)
        BwrapSandbox(spec).close()
        shutil.rmtree(root / f"alternatives-{i}", ignore_errors=True)

    before, after = [], []
    for i in range(n):
        t = cpu_s()
        baseline(i)
        before.append(cpu_s() - t)
        t = cpu_s()
        now()
        after.append(cpu_s() - t)
    b, a = statistics.median(before) * 1000, statistics.median(after) * 1000
    print(f"baseline (metadata read, python asked, /etc/alternatives copied per open): median {b:6.1f} ms CPU")
    print(f"now      (read once per process, alternatives bound read-only):            median {a:6.1f} ms CPU")
    print(f"ratio now/baseline: {a / b:.2f}  ({n} opens each, interleaved)")
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
