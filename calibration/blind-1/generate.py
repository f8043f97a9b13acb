"""Generate the blind-1 trajectories: every behaviour x task through the real harness loop and
sandbox (api.run_one), lite tier, with a judge that ABSTAINS (no S1-S3 verdict is produced or
shown). Whole run folders are kept under --out. Printed per trajectory: the exit code of every
call (trace.jsonl `execution` events) and the task score, nothing else.

    cd /work/main
    PYTHONPATH=src .venv/bin/python calibration/blind-1/generate.py --out /tmp/blind-1-runs
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from automedbench.agents import AGENT_CLASSES  # noqa: E402
from automedbench.agents.base import AgentOutcome  # noqa: E402
from automedbench.agents.scripted import ScriptedAgent  # noqa: E402
from automedbench.api import run_one  # noqa: E402
from automedbench.runs.options import RunOptions  # noqa: E402
from automedbench.scoring.judge import JUDGES  # noqa: E402
from automedbench.tasks import get_task  # noqa: E402

import behaviours as B  # noqa: E402


class AbstainingJudge:
    """Returns no verdict: the runs are kept unjudged (they are for a later, single measurement)."""
    backend, model, version = "none", None, "1"

    def judge(self, evidence):
        return {"s1": None, "s2": None, "s3": None}


JUDGES.add("blind-no-judge", AbstainingJudge, replace=True)


def agent_class(bid, behaviour):
    class A(ScriptedAgent):
        name = bid

        def run(self, system_prompt, context, tools):
            for language, code in behaviour(context):
                self.call(tools, language, code)
            self.submit(tools)
            return AgentOutcome("submitted")
    return A


def stage_missing(tasks, data_root):
    root = Path(data_root or os.environ.get("AUTOMEDBENCH_DATA") or Path.home() / ".cache/automedbench/data")
    for ds in sorted({get_task(t).dataset for t in tasks}):
        if (root / ds / "manifest.json").is_file():
            continue
        print(f"staging {ds} ...", flush=True)
        cmd = [sys.executable, "-m", "automedbench", "data", "stage", ds]
        if data_root:
            cmd += ["--data-root", str(data_root)]
        subprocess.run(cmd, check=True)


def exit_codes(run_dir: Path) -> list:
    codes = []
    for line in (run_dir / "trace.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("type") == "execution":
            codes.append(e.get("exit_code"))
    return codes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="folder for the run folders (default: a new temp dir)")
    ap.add_argument("--only", help="comma-separated behaviour ids")
    ap.add_argument("--tasks", help="comma-separated task ids (only these of each behaviour's two)")
    ap.add_argument("--data-root", help="datasets root (default $AUTOMEDBENCH_DATA or ~/.cache/automedbench/data)")
    a = ap.parse_args(argv)
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="blind-1-runs-"))
    out.mkdir(parents=True, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    want_tasks = set(a.tasks.split(",")) if a.tasks else None
    cells = [(bid, fn, t) for bid, (fn, tasks, adv) in B.BEHAVIOURS.items() if not only or bid in only
             for t in tasks if not want_tasks or t in want_tasks]
    stage_missing({t for _, _, t in cells}, a.data_root)
    opts = RunOptions(judges=["blind-no-judge"], data_root=a.data_root)
    index = []
    t_all = time.time()
    for bid, fn, task in cells:
        AGENT_CLASSES.add(bid, agent_class(bid, fn), replace=True, description="blind held-out")
        t0 = time.time()
        report = run_one(task, "lite", bid, out / bid, opts)
        run_dir = Path(report.run_dir)
        codes = exit_codes(run_dir)
        score = report.task.score if report.task is not None else None
        dt = time.time() - t0
        print(f"{bid:28s} {task:20s} exit={codes} task_score={score} ({dt:.0f}s)", flush=True)
        index.append({"id": f"{bid}__{task}", "behaviour": bid, "task": task, "run_dir": str(run_dir),
                      "exit_codes": codes, "task_score": score})
    (out / "index.json").write_text(json.dumps(index, indent=1))
    print(f"{len(index)} trajectories in {time.time() - t_all:.0f}s; run folders under {out}")


if __name__ == "__main__":
    main()
