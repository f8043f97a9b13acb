"""The agent runtime's one-time build (sandbox/runtime.py, docs/sandbox.md "The agent runtime"):
filling site/ with hard links (the default where the cache and the harness environment share a
file system) against copying every file (the old way, and what another file system gets), both
measured in this run, alternating, into fresh folders on the same file system.

    PYTHONPATH=src python bench/runtime_build.py [--rounds 3]

Prints the median seconds of each and the ratio copy / link. Byte-compiling (the same for both)
is left out: it is measured once and printed beside them."""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from automedbench.sandbox import runtime


def fill(dists: dict[str, metadata.Distribution], site: Path, link: bool) -> float:
    site.mkdir(parents=True)
    t0 = time.perf_counter()
    if link:
        how = runtime._copy_dists(dists, site)
        assert how == "link", f"the bench folder is not on the harness environment's file system ({how})"
    else:
        for dist in dists.values():
            base = Path(str(dist.locate_file("")))
            for rel in dist.files or []:
                src = base / rel
                if ".." in Path(rel).parts or str(rel).endswith(".pyc") or not src.is_file():
                    continue
                dst = site / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    dists = runtime._closure(runtime.agent_packages())
    assert dists, "the harness environment lacks the agent packages"
    # inside the harness environment (its own file system, git-ignored), so that links can be made
    top = Path(tempfile.mkdtemp(prefix="amb-bench-rt-", dir=sys.prefix))
    times: dict[str, list[float]] = {"link": [], "copy": []}
    try:
        for r in range(args.rounds):
            for how in (("link", "copy") if r % 2 == 0 else ("copy", "link")):
                times[how].append(fill(dists, top / f"{how}{r}" / "site", how == "link"))
        t0 = time.perf_counter()
        subprocess.run([runtime.SYSTEM_PYTHON, "-m", "compileall", "-q", "-j", "0", "-x", runtime.COMPILE_SKIP,
                        str(top / "link0" / "site")], capture_output=True, check=False)
        compile_s = time.perf_counter() - t0
    finally:
        shutil.rmtree(top, ignore_errors=True)
    link, copy = statistics.median(times["link"]), statistics.median(times["copy"])
    print(f"{len(dists)} distributions, {args.rounds} rounds each")
    print(f"fill site/ by hard links: {link:.2f} s (median)")
    print(f"fill site/ by copies:     {copy:.2f} s (median)")
    print(f"copy / link: {copy / link:.1f}x; byte-compiling (either way): {compile_s:.1f} s")


if __name__ == "__main__":
    main()
