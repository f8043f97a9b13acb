"""Latency of `execute("python", "print(1)")` through bwrap (network off and on), through
`docker exec` into the docker backend's running container (when an engine answers and an
agent image was built: `automedbench sandbox build-image`), vs a bare subprocess, and what
network on adds to sandbox start-up -- all in the same run.

    PYTHONPATH=src python bench/sandbox_overhead.py [-n 50] [--opens 8] [--no-docker]

Every side runs the same interpreter (the agent runtime's /usr/bin/python3 with the same
PYTHONPATH), interleaved, so differences are the sandbox alone: fork with privilege drop +
private mount ns (+ joining the sandbox's network namespace when on), bwrap's namespace
setup, and the decoy drain. Start-up = open the sandbox (network on: a network namespace,
slirp4netns, the routing policy, pip's index settings) + one call + close.
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
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def row(label: str, xs: list[float], base: float | None = None) -> str:
    med = statistics.median(xs)
    ratio = f"   ratio {med / base:5.2f}x" if base else ""
    return f"{label:<26}: median {med:7.1f} ms   p95 {pct(xs, .95):7.1f} ms{ratio}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=50, help="calls per side")
    ap.add_argument("--opens", type=int, default=8, help="sandbox start-ups per network setting")
    ap.add_argument("--no-docker", action="store_true", help="leave the docker column out")
    ap.add_argument("--python", help="use this interpreter (visible under /usr) with an empty runtime "
                                     "instead of building the agent runtime")
    args = ap.parse_args()
    from automedbench.sandbox import SandboxSpec
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
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

    def open_box(network: bool) -> BwrapSandbox:
        return BwrapSandbox(SandboxSpec(public_dir=tmp / "public", workspace=tmp / "ws", network=network),
                            runtime_dir=runtime)

    can_net = os.geteuid() == 0
    boxes = {"off": open_box(False)}
    if can_net:
        boxes["on"] = open_box(True)
    docker_note = "docker: not measured (--no-docker)"
    if not args.no_docker:
        from automedbench.sandbox import SandboxError
        from automedbench.sandbox.docker.backend import DockerSandbox
        try:
            boxes["docker"] = DockerSandbox(SandboxSpec(public_dir=tmp / "public", workspace=tmp / "ws-docker"))
            docker_note = f"docker image {boxes['docker'].image[:19]}..."
        except SandboxError as exc:
            docker_note = f"docker: not measured ({exc})"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(runtime / "boot"), "HOME": str(tmp / "ws")}
    bare_argv = [str(runtime / "bin" / "python"), "-c", "print(1)"]
    for _ in range(3):  # warm caches on every side
        for box in boxes.values():
            box.execute("python", "print(1)")
        subprocess.run(bare_argv, env=env, capture_output=True, check=True)
    calls: dict[str, list[float]] = {"bare": [], **{k: [] for k in boxes}}
    for _ in range(args.n):
        for key, box in boxes.items():
            t = time.perf_counter()
            r = box.execute("python", "print(1)")
            calls[key].append((time.perf_counter() - t) * 1000)
            assert r.stdout.strip() == "1", r
        t = time.perf_counter()
        p = subprocess.run(bare_argv, env=env, capture_output=True, text=True, check=True)
        calls["bare"].append((time.perf_counter() - t) * 1000)
        assert p.stdout.strip() == "1"
    mode = boxes["off"].mode
    for box in boxes.values():
        box.close()

    starts: dict[str, list[float]] = {k: [] for k in boxes if k != "docker"}
    for _ in range(args.opens):
        for key in starts:
            t = time.perf_counter()
            box = open_box(key == "on")
            box.execute("python", "print(1)")
            box.close()
            starts[key].append((time.perf_counter() - t) * 1000)

    _print_report(args, mode, calls, starts, docker_note)


def _print_report(args: argparse.Namespace, mode: str, calls: dict[str, list[float]], starts: dict[str, list[float]],
                  docker_note: str) -> None:
    """The table: per-call medians against a bare subprocess, then start-up times."""
    mb = statistics.median(calls["bare"])
    print(f"N={args.n} calls, {args.opens} start-ups; privilege mode={mode} python={sys.version.split()[0]} (harness)")
    print(row("bare subprocess", calls["bare"]))
    print(row("bwrap, network off", calls["off"], mb))
    if "on" in calls:
        print(row("bwrap, network on", calls["on"], mb))
    if "docker" in calls:
        print(row("docker exec (running ctr)", calls["docker"], mb))
    print(f"                            {docker_note}")
    print(f"overhead per call (off)   : median {statistics.median(calls['off']) - mb:7.1f} ms")
    print()
    off = statistics.median(starts["off"])
    print(row("start-up, network off", starts["off"]))
    if "on" in starts:
        print(row("start-up, network on", starts["on"], off))
        print(f"network on adds at start-up: median {statistics.median(starts['on']) - off:7.1f} ms "
              "(its own netns + slirp4netns + routes + pip index settings)")
    else:
        print("network on: not measured (needs a root harness)")
    # (no CPU-time comparison: bwrap's pid 1 reaps the sandboxed process inside the pid
    # namespace, so its CPU never reaches our RUSAGE_CHILDREN)
    print(f"load average              : {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (timings are wall clock)")


if __name__ == "__main__":
    main()
