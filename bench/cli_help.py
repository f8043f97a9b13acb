"""How long a command's `--help` takes against a bare interpreter start (docs/cli.md "Start-up";
issue 42: `automedbench run --help` <= 3x `python -c pass`). All fresh processes, interleaved,
in the same run:

- `python -c pass`: the bare interpreter (this venv's), the baseline;
- `automedbench run --help`, `automedbench tasks list --help`, `automedbench --help`: the console
  script as a user runs it (a command's page comes from cli/help_pages.py, without typer);
- `automedbench run --help` at 60 columns: the same page laid out by typer (a terminal narrower
  than click's 78 columns), importing typer and the command's module but not the API; what every
  `run --help` cost before the pages, less the API (~0.6 s more, docs/cli.md "Start-up").

    .venv/bin/python bench/cli_help.py [-n 21]

Prints the median wall time and CPU time (user + system, of the process) of each and its ratio to
the bare interpreter's, and whether the goal (<= 3x, wall and CPU) is met for `run --help`.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = str(Path(sys.executable).with_name("automedbench"))
BARE = "python -c pass"
CASES = {
    BARE: ([sys.executable, "-c", "pass"], "100"),
    "automedbench run --help": ([SCRIPT, "run", "--help"], "100"),
    "automedbench tasks list --help": ([SCRIPT, "tasks", "list", "--help"], "100"),
    "automedbench --help": ([SCRIPT, "--help"], "100"),
    "automedbench run --help, 60 columns (typer)": ([SCRIPT, "run", "--help"], "60"),
}
GOAL = 3.0


def once(cmd: list[str], columns: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "COLUMNS": columns})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=21, help="runs of each (interleaved)")
    args = parser.parse_args()
    if not Path(SCRIPT).is_file():
        sys.exit(f"{SCRIPT}: no console script (install the package: make setup)")
    for cmd, columns in CASES.values():   # warm: bytecode written, files in the page cache
        once(cmd, columns)
    walls: dict[str, list[float]] = {name: [] for name in CASES}
    cpus: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.n):
        for name, (cmd, columns) in CASES.items():
            wall, cpu = once(cmd, columns)
            walls[name].append(wall)
            cpus[name].append(cpu)
    wall = {name: statistics.median(v) for name, v in walls.items()}
    cpu = {name: statistics.median(v) for name, v in cpus.items()}
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; median of {args.n}")
    print(f"  {'':<46} {'wall':>8} {'ratio':>7} {'CPU':>8} {'ratio':>7}")
    for name in CASES:
        print(f"  {name:<46} {wall[name]:7.3f}s {wall[name] / wall[BARE]:6.1f}x "
              f"{cpu[name]:7.3f}s {cpu[name] / max(cpu[BARE], 1e-3):6.1f}x")
    ratio = wall["automedbench run --help"] / wall[BARE]
    cpu_ratio = cpu["automedbench run --help"] / max(cpu[BARE], 1e-3)
    met = ratio <= GOAL and cpu_ratio <= GOAL
    print(f"goal `automedbench run --help` <= {GOAL:.0f}x a bare interpreter: {'met' if met else 'NOT met'} "
          f"(wall {ratio:.1f}x, CPU {cpu_ratio:.1f}x)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
