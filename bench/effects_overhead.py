"""What recording each execution's effects (sandbox/observe/effects.py, docs/sandbox.md "Observed
effects") adds to a bwrap call: the same snippet -- read 3 public files, write 2 outputs of
64 KiB -- through two sandboxes over the same public data, one recording and one not,
interleaved, in the same run on the same machine.

    PYTHONPATH=src python bench/effects_overhead.py [-n 30] [--python /usr/bin/python3]

Prints both medians, the added median in ms and the ratio, and the recorder's own time
per call (begin + end: draining the queue, mapping paths, hashing the written files),
which is the part of the difference that is not noise. Goal: <= 5 ms median added.
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
from typing import Any

SNIPPET = """
import os
for c in ("case_000", "case_001", "case_002"):
    open(f"/data/public/{c}/image.bin", "rb").read()
os.makedirs("outputs/case_000", exist_ok=True)
for name in ("mask.bin", "probs.bin"):
    with open(f"outputs/case_000/{name}", "wb") as fh:
        fh.write(os.urandom(65536))
print("ok")
"""


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=30, help="calls per side")
    ap.add_argument("--python", help="use this interpreter (visible under /usr) with an empty runtime "
                                     "instead of building the agent runtime (the snippet needs only the stdlib)")
    args = ap.parse_args()
    from automedbench.sandbox import SandboxSpec
    from automedbench.sandbox.bwrap.backend import BwrapSandbox, find_bwrap
    from automedbench.sandbox.runtime import ensure_agent_runtime

    try:
        find_bwrap()
    except Exception as exc:  # the bench is skipped, not failed, where bwrap is missing
        print(f"effects overhead: not measured ({exc})")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="amb-bench-effects-"))
    try:
        for case in ("case_000", "case_001", "case_002"):
            (tmp / "public" / case).mkdir(parents=True)
            (tmp / "public" / case / "image.bin").write_bytes(os.urandom(256 * 1024))
        if args.python:
            runtime = tmp / "runtime"
            (runtime / "bin").mkdir(parents=True)
            (runtime / "boot").mkdir()
            (runtime / "bin" / "python").symlink_to(args.python)
        else:
            runtime = ensure_agent_runtime()
        boxes = {
            "off": BwrapSandbox(SandboxSpec(public_dir=tmp / "public", workspace=tmp / "ws-off",
                                            record_effects=False), runtime_dir=runtime),
            "on": BwrapSandbox(SandboxSpec(public_dir=tmp / "public", workspace=tmp / "ws-on"),
                               runtime_dir=runtime),
        }
        recorder = boxes["on"].effects
        assert recorder is not None
        own: list[float] = []
        for name in ("begin", "end"):   # time the recorder's own work inside each call
            inner = getattr(recorder, name)

            def timed(*a: Any, _inner: Any = inner) -> Any:
                t = time.perf_counter()
                try:
                    return _inner(*a)
                finally:
                    own.append((time.perf_counter() - t) * 1000)
            setattr(recorder, name, timed)
        for _ in range(3):  # warm caches on both sides
            for box in boxes.values():
                box.execute("python", SNIPPET)
        own.clear()
        calls: dict[str, list[float]] = {k: [] for k in boxes}
        for i in range(args.n):
            order = list(boxes.items()) if i % 2 == 0 else list(reversed(boxes.items()))
            for key, box in order:
                t = time.perf_counter()
                r = box.execute("python", SNIPPET)
                calls[key].append((time.perf_counter() - t) * 1000)
                assert r.exit_code == 0 and r.stdout.strip() == "ok", r.stderr
                if key == "on":
                    assert r.effects is not None and len(r.effects["written"]) == 2 \
                        and len(r.effects["read"]) == 3, r.effects
        for box in boxes.values():
            box.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    off, on = statistics.median(calls["off"]), statistics.median(calls["on"])
    per_call = [a + b for a, b in zip(own[0::2], own[1::2])]
    print(f"N={args.n} calls per side, interleaved; python={sys.version.split()[0]} (harness); "
          f"snippet: read 3 public files, write 2 outputs of 64 KiB")
    print(f"bwrap, effects off : median {off:7.1f} ms   p95 {pct(calls['off'], .95):7.1f} ms")
    print(f"bwrap, effects on  : median {on:7.1f} ms   p95 {pct(calls['on'], .95):7.1f} ms")
    paired = statistics.median(a - b for a, b in zip(calls["on"], calls["off"]))
    print(f"added per call     : median {on - off:7.2f} ms   ratio {on / off:5.3f}x   (goal <= 5 ms)")
    print(f"paired difference  : median {paired:7.2f} ms   (call i on minus call i off, same moment)")
    print(f"recorder's own time: median {statistics.median(per_call):7.2f} ms   p95 {pct(per_call, .95):7.2f} ms "
          "(begin + end: drain, paths, hashing the 2 outputs)")
    print(f"load average       : {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (timings are wall clock)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
