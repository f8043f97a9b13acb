"""Per-test CPU seconds, with every process a test starts (docs/testing.md "How to profile").

A pytest plug-in: each pytest process (each xdist worker) moves itself into a cgroup of its own
(cgroup v1 `cpuacct`, as root) and reads its `cpuacct.usage` before and after each test, so a
test is charged for its sandboxes, the browser, the CLI forks and the scripts it runs, not only
for the pytest process. One JSON line per test goes to $AMB_TEST_CPU_OUT (default
/tmp/amb-test-cpu): node id, file, CPU seconds, wall seconds, whether it is marked `slow`.
Without the cgroup (not root, cgroup v2 only) the CPU column is 0 and wall time is still written.

    AMB_TEST_CPU_OUT=/tmp/cpu PYTEST_ADDOPTS="-p tests.profile_cpu" make test
    .venv/bin/python -m tests.profile_cpu /tmp/cpu          # per file, most CPU first (and removes
                                                            # the emptied groups)

Not loaded unless asked for; the summary is what docs/testing.md's appendix quotes per file.
"""
from __future__ import annotations

import collections
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

_CGROUPS = Path("/sys/fs/cgroup/cpuacct")
_state: dict[str, Any] = {"cgroup": None, "out": None}


def _usage() -> int:
    cg = _state["cgroup"]
    return int((cg / "cpuacct.usage").read_text()) if cg else 0


def pytest_configure(config: pytest.Config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    cg = _CGROUPS / f"amb-test-cpu-{os.getpid()}-{worker}"
    try:
        cg.mkdir(exist_ok=True)
        (cg / "cgroup.procs").write_text(str(os.getpid()))
        _state["cgroup"] = cg
    except OSError:
        _state["cgroup"] = None
    out = Path(os.environ.get("AMB_TEST_CPU_OUT", "/tmp/amb-test-cpu"))
    out.mkdir(parents=True, exist_ok=True)
    _state["out"] = open(out / f"{worker}-{os.getpid()}.jsonl", "a")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _state["out"]:
        _state["out"].close()
    cg = _state["cgroup"]
    if cg:   # back to the root group, then remove ours (it fails while a child still runs in it)
        try:
            (_CGROUPS / "cgroup.procs").write_text(str(os.getpid()))
            cg.rmdir()
        except OSError:
            pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    c0, t0 = _usage(), time.monotonic()
    yield
    c1, t1 = _usage(), time.monotonic()
    _state["out"].write(json.dumps({"id": item.nodeid, "file": item.nodeid.split("::")[0], "cpu": (c1 - c0) / 1e9,
                                    "wall": t1 - t0, "slow": item.get_closest_marker("slow") is not None}) + "\n")
    _state["out"].flush()


def summary(folder: Path, top: int = 40) -> str:
    """Per file: CPU seconds, wall seconds summed over its tests, tests, CPU of its `slow` tests."""
    rows = [json.loads(line) for f in sorted(folder.glob("*.jsonl")) for line in f.read_text().splitlines()]
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0, 0.0])
    for r in rows:
        f = files[r["file"]]
        f[0] += r["cpu"]
        f[1] += r["wall"]
        f[2] += 1
        f[3] += r["cpu"] if r["slow"] else 0.0
    slow = sum(r["cpu"] for r in rows if r["slow"])
    lines = [f"{len(rows)} tests: {sum(r['cpu'] for r in rows):.0f} CPU-s ({slow:.0f} in `slow` tests)",
             f"{'CPU-s':>7} {'wall-s':>7} {'tests':>5} {'slow':>7}  file"]
    for name, (cpu, wall, n, s) in sorted(files.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f"{cpu:7.1f} {wall:7.1f} {n:5d} {s:7.1f}  {name}")
    return "\n".join(lines)


def remove_empty_groups() -> None:
    """A worker's group outlives it while a process it started (the CLI fork server, a private
    dockerd) is still running at its exit; once they are gone the empty group is removed here."""
    for cg in _CGROUPS.glob("amb-test-cpu-*"):
        try:
            if not (cg / "cgroup.procs").read_text().strip():
                cg.rmdir()
        except OSError:
            pass


if __name__ == "__main__":
    remove_empty_groups()
    print(summary(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/amb-test-cpu"),
                  int(sys.argv[2]) if len(sys.argv) > 2 else 40))
