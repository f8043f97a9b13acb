"""Latency of `execute("python", "print(1)")` through bwrap vs a bare subprocess.

    PYTHONPATH=src python bench/sandbox_overhead.py [-n 50]

Both sides run the same interpreter (the agent runtime's /usr/bin/python3 with the same
PYTHONPATH), interleaved in the same run, so the difference is the sandbox alone:
fork with privilege drop + private mount ns, bwrap's namespace setup, and the decoy drain.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=50)
    ap.add_argument("--python", help="use this interpreter (visible under /usr) with an empty runtime "
                                     "instead of building the agent runtime")
    args = ap.parse_args()
    from automedbench.sandbox import SandboxSpec
    from automedbench.sandbox.bwrap import BwrapSandbox
    from automedbench.sandbox.runtime import ensure_agent_runtime

    tmp = Path(tempfile.mkdtemp(prefix="amb-bench-"))
    if args.python:
        runtime = tmp / "runtime"
        (runtime / "bin").mkdir(parents=True)
        (runtime / "boot").mkdir()
        (runtime / "bin" / "python").symlink_to(args.python)
    else:
        runtime = ensure_agent_runtime()
    (tmp / "public" / "case_0").mkdir(parents=True)
    box = BwrapSandbox(SandboxSpec(public_dir=tmp / "public", workspace=tmp / "ws"), runtime_dir=runtime)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(runtime / "boot"), "HOME": str(tmp / "ws")}
    bare_argv = [str(runtime / "bin" / "python"), "-c", "print(1)"]
    for _ in range(3):  # warm caches on both sides
        box.execute("python", "print(1)")
        subprocess.run(bare_argv, env=env, capture_output=True)
    sandboxed, bare = [], []
    for _ in range(args.n):
        t = time.perf_counter()
        r = box.execute("python", "print(1)")
        sandboxed.append((time.perf_counter() - t) * 1000)
        assert r.stdout.strip() == "1", r
        t = time.perf_counter()
        p = subprocess.run(bare_argv, env=env, capture_output=True, text=True)
        bare.append((time.perf_counter() - t) * 1000)
        assert p.stdout.strip() == "1"
    box.close()
    mb, ms = statistics.median(bare), statistics.median(sandboxed)
    print(f"N={args.n} privilege mode={box.mode} python={sys.version.split()[0]} (harness)")
    print(f"bare subprocess : median {mb:6.1f} ms   p95 {pct(bare, .95):6.1f} ms")
    print(f"bwrap sandbox   : median {ms:6.1f} ms   p95 {pct(sandboxed, .95):6.1f} ms")
    print(f"overhead        : median {ms - mb:6.1f} ms   p95 {pct(sandboxed, .95) - pct(bare, .95):6.1f} ms"
          f"   ratio {ms / mb:4.2f}x")
    # (no CPU-time comparison: bwrap's pid 1 reaps the sandboxed process inside the pid
    # namespace, so its CPU never reaches our RUSAGE_CHILDREN)
    print(f"load average    : {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (timings are wall clock)")


if __name__ == "__main__":
    main()
