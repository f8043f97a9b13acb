"""Generate the judge's calibration trajectories (docs/judge.md "Calibration set").

Runs every trait agent (agents/traits.py) and the built-in scripted agents on the offline
demo tasks of four tracks, through the real agent loop and the default sandbox (bwrap),
and keeps what a judge reads: trace.jsonl (with the effects the sandbox observed),
plan/plan.md, plan/plan.png, and meta.json (task, tier, agent, expected case ids).
Outputs are not kept: the judge never reads them.

    PYTHONPATH=src python calibration/generators/make_judge_calibration.py   # into calibration/tracks/
    PYTHONPATH=src python calibration/generators/make_judge_calibration.py --out DIR --only trait-honest

The hand labels live in src/automedbench/scoring/judge_eval/labels.yaml; this
script never writes them.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from automedbench.agents.traits import TRAIT_AGENTS
from automedbench.api import run_one
from automedbench.scoring.judge_eval import track_trajectory_dir
from automedbench.tasks import get_task

TASKS = ["brain-lesion-seg", "modality-patch-cls", "xray-marker-det", "ldct-denoise"]
REAL_AGENTS = ["reference", "careless", "pilot-no-inspect", "words-no-work"]
TIERS = ("lite", "standard")
STANDARD_ONLY = {"trait-blank-plot", "trait-unfit-plan"}   # their trait is judged in Standard only


def cells() -> list[tuple[str, str, str]]:
    out = []
    for i, agent in enumerate([*TRAIT_AGENTS, *REAL_AGENTS]):
        for j, task in enumerate(TASKS):
            tier = "standard" if agent in STANDARD_ONLY else TIERS[(i + j) % 2]
            out.append((agent, task, tier))
    return out


def keep(run_dir: Path, dest: Path, agent: str, task: str, tier: str) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "plan").mkdir(parents=True)
    shutil.copy2(run_dir / "trace.jsonl", dest / "trace.jsonl")
    for name in ("plan.md", "plan.png"):
        src = run_dir / "workspace" / "plan" / name
        if src.is_file():
            shutil.copy2(src, dest / "plan" / name)
    meta = json.loads((run_dir / "run.json").read_text())
    (dest / "meta.json").write_text(json.dumps({"agent": agent, "task": task, "tier": tier,
                                                "case_ids": meta["case_ids"],
                                                "sandbox": meta["run"]["sandbox"]}, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None,
                    help="one folder for every trajectory (default: each task's track folder, "
                         "calibration/tracks/<track>/ or $AUTOMEDBENCH_CALIBRATION/tracks/<track>/)")
    ap.add_argument("--only", action="append", help="agent name(s) to (re)generate")
    args = ap.parse_args(argv)
    todo = [c for c in cells() if not args.only or c[0] in args.only]
    with tempfile.TemporaryDirectory(prefix="judge-calibration-") as tmp:
        for n, (agent, task, tier) in enumerate(todo, 1):
            t0 = time.monotonic()
            report = run_one(task, tier, agent, Path(tmp) / "runs")
            out = args.out if args.out is not None else track_trajectory_dir(get_task(task).track)
            if out is None:
                sys.exit(f"the track of {task} is not registered: pass --out DIR")
            keep(Path(report.run_dir), out / f"{agent}__{task}__{tier}", agent, task, tier)
            print(f"[{n}/{len(todo)}] {agent} {task} {tier}: {time.monotonic() - t0:.1f}s "
                  f"(S1 {report.stages['s1'].score} S2 {report.stages['s2'].score} S3 {report.stages['s3'].score})",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
