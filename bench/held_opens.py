"""What holding the sandbox's opens until their folder is watched (sandbox/observe/mount_gate.py,
docs/sandbox.md "Opens held until their folder is watched") adds to a recorded bwrap call:
the same snippet -- make a new case folder, write a pilot in it, read it back, rewrite it,
read 3 public files -- through one recording sandbox, calls with the hold and without it
(`AUTOMEDBENCH_HOLD_OPENS=0`) interleaved, in the same run on the same machine.

    python bench/held_opens.py [-n 30]

Needs a root harness (fanotify). Prints both medians, the added median in ms, the ratio,
and whether each held call had its mount marked. Goal: <= 5 ms median added.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

SNIPPET = """
import os
for c in ("case_000", "case_001", "case_002"):
    open(f"/data/public/{c}/image.bin", "rb").read()
os.makedirs("outputs/case_{n:04d}/pilot")
path = "outputs/case_{n:04d}/pilot/mask.bin"
open(path, "wb").write(os.urandom(65536))
open(path, "rb").read()
open(path, "wb").write(os.urandom(65536))
print("ok")
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=30, help="calls per side (default 30)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("skipped: opens are held only by a root harness (fanotify needs CAP_SYS_ADMIN)")
        return 0
    from automedbench.sandbox import SandboxSpec, open_sandbox

    top = Path(tempfile.mkdtemp(prefix="amb-bench-held-"))
    try:
        for c in ("case_000", "case_001", "case_002"):
            (top / "public" / c).mkdir(parents=True)
            (top / "public" / c / "image.bin").write_bytes(os.urandom(1 << 20))
        box = open_sandbox("bwrap", SandboxSpec(public_dir=top / "public", workspace=top / "ws", network=False))
        times: dict[str, list[float]] = {"held": [], "not held": []}
        marked: list[bool] = []
        try:
            box.execute("python", "print(1)")   # warm the runtime's files in the page cache
            for i in range(2 * args.n):
                side = "held" if i % 2 == 0 else "not held"
                os.environ["AUTOMEDBENCH_HOLD_OPENS"] = "1" if side == "held" else "0"
                t0 = time.perf_counter()
                r = box.execute("python", SNIPPET.replace("{n:04d}", f"{i:04d}"))
                times[side].append(time.perf_counter() - t0)
                if r.exit_code != 0:
                    print(r.stderr[-500:], file=sys.stderr)
                    return 1
                if side == "held":
                    marked.append(bool(box.effects is not None and box.effects.opens_held))
        finally:
            box.close()
    finally:
        os.environ.pop("AUTOMEDBENCH_HOLD_OPENS", None)
        shutil.rmtree(top, ignore_errors=True)
    held, plain = (statistics.median(times[k]) * 1e3 for k in ("held", "not held"))
    print(f"calls per side: {args.n}; held calls whose mount was marked: {sum(marked)}/{len(marked)}")
    print(f"median call: held {held:.1f} ms, not held {plain:.1f} ms; "
          f"added {held - plain:+.2f} ms (ratio {held / plain:.3f}); goal <= 5 ms added")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
