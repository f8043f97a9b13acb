"""Generate the blind-20 trajectories: every behaviour x task through the real harness loop and
sandbox (lite tier), with a judge that ABSTAINS (no S1-S3 verdict is produced or shown).
Keeps every run folder under --out and writes --out/index.json.

    PYTHONPATH=src .venv/bin/python calibration/blind-20/generate.py --out /tmp/blind-20-runs
        [--only BEHAVIOUR,...] [--tasks TASK,...]

Prints per trajectory only the exit code of every call and the task score."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "src"))

from behaviours import ADVERSARIAL, BEHAVIOURS, SUBMITS, TASKS  # noqa: E402

from automedbench.agents import AGENT_CLASSES  # noqa: E402
from automedbench.agents.base import AgentOutcome  # noqa: E402
from automedbench.agents.scripted import ScriptedAgent  # noqa: E402
from automedbench.api import run_one  # noqa: E402
from automedbench.runs.options import RunOptions  # noqa: E402
from automedbench.scoring.judge import JUDGES  # noqa: E402


class AbstainingJudge:
    backend, model, version = "none", None, "1"

    def judge(self, evidence):
        return {"s1": None, "s2": None, "s3": None}


JUDGES.add("blind-no-judge", AbstainingJudge, replace=True)


def agent_class(bid, behaviour, submits=True):
    class A(ScriptedAgent):
        name = bid

        def run(self, system_prompt, context, tools):
            for language, code in behaviour(context):
                self.call(tools, language, code)
            if not submits:
                return AgentOutcome("agent_finished")
            self.submit(tools)
            return AgentOutcome("submitted")
    A.__name__ = f"Blind20_{bid}"
    return A


def dataset_of(task: str) -> str:
    out = subprocess.run([sys.executable, "-m", "automedbench", "tasks", "show", task, "--json"],
                         capture_output=True, text=True, cwd=REPO, check=True)
    return json.loads(out.stdout)["dataset"]


def ensure_staged(tasks: list[str]) -> None:
    for ds in sorted({dataset_of(t) for t in tasks}):
        r = subprocess.run([sys.executable, "-m", "automedbench", "data", "verify", ds],
                           capture_output=True, text=True, cwd=REPO)
        if r.returncode != 0:
            print(f"staging {ds} ...", flush=True)
            subprocess.run([sys.executable, "-m", "automedbench", "data", "stage", ds], cwd=REPO, check=True)


def exit_codes(run_dir: Path) -> list[int | None]:
    codes = []
    for line in (run_dir / "trace.jsonl").read_text().splitlines():
        ev = json.loads(line)
        if ev.get("type") == "execution":
            codes.append(ev.get("exit_code"))
    return codes


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated behaviour ids")
    ap.add_argument("--tasks", default="", help="comma-separated task ids")
    a = ap.parse_args()
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    tasks_only = set(filter(None, a.tasks.split(",")))
    cells = [(b, t) for b in BEHAVIOURS for t in TASKS[b]
             if (not only or b in only) and (not tasks_only or t in tasks_only)]
    ensure_staged(sorted({t for _, t in cells}))
    index_path = out / "index.json"
    index = {e["id"]: e for e in json.loads(index_path.read_text())} if index_path.exists() else {}
    t_all = time.time()
    for bid, task in cells:
        AGENT_CLASSES.add(bid, agent_class(bid, BEHAVIOURS[bid], SUBMITS.get(bid, True)), replace=True,
                          description="blind held-out")
        t0 = time.time()
        report = run_one(task, "lite", bid, out, RunOptions(judges=["blind-no-judge"]))
        run_dir = Path(report.run_dir).resolve()
        codes = exit_codes(run_dir)
        score = report.task.score
        tid = f"{bid}__{task}"
        index[tid] = {"id": tid, "behaviour": bid, "task": task, "adversarial": bid in ADVERSARIAL,
                      "run_dir": str(run_dir), "exit_codes": codes, "task_score": score}
        print(f"{tid:55s} exit {codes}  task_score {score if score is None else round(score, 4)}"
              f"  ({time.time() - t0:.0f}s)", flush=True)
        index_path.write_text(json.dumps(list(index.values()), indent=1))
    print(f"{len(cells)} trajectories in {time.time() - t_all:.0f}s; index: {index_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
