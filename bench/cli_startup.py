"""How long `automedbench --version` and `automedbench --help` take to answer (docs/cli.md
"Start-up"), against the start-up every CLI call paid before the command table was lazy: an
interpreter importing every command's module (the API, the scoring, the judge, the tracks...)
before parsing anything. All three are fresh interpreters, interleaved, in the same run.

`automedbench tasks list` is timed against the same command run after importing what track
discovery and the API imported before they imported them only where used (docs/testing.md
"CLI start-up"): nibabel (and with it pydicom), scipy.ndimage, Pillow, jinja2, rich.progress.
Both are fresh interpreters, interleaved with the rest.

    .venv/bin/python bench/cli_startup.py [-n 7]

Prints the median wall time of each and the ratio of each baseline to the command it stands
before; the goal is ≤ 0.3 s for `--version` and `--help` (on a quiet machine: the 1-minute load
average is printed, as a loaded machine slows every interpreter start alike).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

# what the CLI imported before any command ran, up to this change: every command module
EAGER = ("import automedbench.cli.root, automedbench.cli.running, automedbench.cli.saved_runs, "
         "automedbench.cli.catalog, automedbench.cli.doctor, automedbench.cli.sandbox, automedbench.cli.lists")
# what `tasks list` imported before the heavy libraries moved into the functions that use them
EAGER_LIBS = "import nibabel, scipy.ndimage, PIL.Image, jinja2, rich.progress"
TASKS_LIST = "import sys; sys.argv = ['automedbench', 'tasks', 'list']; from automedbench.cli import main; main()"
CASES = {
    "old start-up (every command module imported)": [sys.executable, "-c", EAGER],
    "automedbench --version": [sys.executable, "-m", "automedbench.cli", "--version"],
    "automedbench --help": [sys.executable, "-m", "automedbench.cli", "--help"],
    "old tasks list (heavy libraries imported first)": [sys.executable, "-c", f"{EAGER_LIBS}; {TASKS_LIST}"],
    "automedbench tasks list": [sys.executable, "-c", TASKS_LIST],
}
# each measured command -> the baseline it is compared with
BASELINE_OF = {
    "automedbench --version": "old start-up (every command module imported)",
    "automedbench --help": "old start-up (every command module imported)",
    "automedbench tasks list": "old tasks list (heavy libraries imported first)",
}


def once(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "100"})
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="runs of each (interleaved)")
    args = parser.parse_args()
    for cmd in CASES.values():   # warm: bytecode written, files in the page cache
        once(cmd)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.n):
        for name, cmd in CASES.items():
            times[name].append(once(cmd))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; median of {args.n}")
    for name, s in med.items():
        base = BASELINE_OF.get(name)
        ratio = "" if base is None else f"   {med[base] / s:5.1f}x faster than the {base.split(' (')[0]}"
        print(f"  {name:<48} {s:6.3f} s{ratio}")
    worst = max(med["automedbench --version"], med["automedbench --help"])
    print(f"goal --version and --help <= 0.3 s: {'met' if worst <= 0.3 else 'not met here'} ({worst:.3f} s)")


if __name__ == "__main__":
    main()
