"""CPU a local sweep spends starting its worker processes (docs/sweeps.md, "Workers die with
the sweep"): workers forked from multiprocessing's fork server that imported the run function's
module once (what `LocalPool` does), against spawned workers that each import it again (what it
did before), in the same run.

    .venv/bin/python bench/worker_start.py [--workers 4] [--rounds 3]

Each worker reports its own CPU time (utime + stime from /proc) when it takes its first job,
which is all its start-up; under the fork server that server's own CPU is added once. Prints the
median total per pool of each start method and their ratio (fork server / spawn).
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import multiprocessing
import os
import statistics

PRELOAD = "automedbench.api"     # the module of the run function a sweep hands its workers


def _cpu_seconds(pid: int | str = "self") -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_job() -> tuple[float, int]:
    """A worker's first job: have what a run needs imported, say what starting cost it."""
    import automedbench.api  # noqa: F401 - under spawn this is the start-up being measured
    return _cpu_seconds(), os.getppid()


def pool_cpu(method: str, workers: int) -> float:
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload([PRELOAD])
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        results = list(pool.map(_held_job, range(workers)))
    assert len({pid for _, _, pid in results}) == workers, "a worker took two jobs: hold them longer"
    total = sum(cpu for cpu, _, _ in results)
    if method == "forkserver":      # the server's own CPU (its preload), counted in every round
        servers = {parent for _, parent, _ in results}
        total += sum(_cpu_seconds(p) for p in servers if os.path.exists(f"/proc/{p}/stat"))
    return total


def _held_job(_: int) -> tuple[float, int, int]:
    import time
    cpu, parent = first_job()
    time.sleep(3)                # held until every worker has started, so none takes two jobs
    return cpu, parent, os.getpid()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    seen: dict[str, list[float]] = {"spawn": [], "forkserver": []}
    for _ in range(args.rounds):
        for method in seen:      # interleaved: a busier minute slows both alike
            seen[method].append(pool_cpu(method, args.workers))
    spawn, fork = statistics.median(seen["spawn"]), statistics.median(seen["forkserver"])
    print(f"{args.workers} workers, median of {args.rounds} pools (load {os.getloadavg()[0]:.2f})")
    print(f"  spawn (before): {spawn:.2f} CPU-s per pool")
    print(f"  fork server, {PRELOAD} preloaded (LocalPool now): {fork:.2f} CPU-s per pool")
    print(f"  ratio fork server / spawn: {fork / spawn:.2f}")


if __name__ == "__main__":
    main()
