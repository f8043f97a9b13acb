"""Generate the judge's held-out trajectories (docs/judge.md "Held-out set").

Runs every held-out behaviour (calibration/generators/heldout_agents.py, 25 of them, and the
sealed parts beside it: heldout_agents_sealed2.py, 23 more, then heldout_agents_sealed3.py ..
heldout_agents_sealed11.py, 22 more each) on its two demo tasks
through the real agent loop and the default sandbox (bwrap), and keeps what a judge reads,
like the calibration set: trace.jsonl, plan/plan.md, plan/plan.png, meta.json, in the folder
`calibration/tracks/<track>/heldout/<id>__<task>__<tier>/` of the task's track (the labels are
in the core: scoring/judge_eval/heldout/labels.yaml). Outputs
are not kept. The runs are scored with NO S1-S3 judge (a judge that abstains on every stage): the set
was labelled before any judge saw it, and this script never shows a verdict. It prints, per
trajectory, the exit code of every call and the task score, so a behaviour that did not run
as written is visible.

    PYTHONPATH=src python calibration/generators/make_judge_heldout.py                # every trajectory
    PYTHONPATH=src python calibration/generators/make_judge_heldout.py --only ho-08   # some behaviours again
    PYTHONPATH=src python calibration/generators/make_judge_heldout.py --out DIR

Re-runnable: a trajectory folder is replaced whole; with no --only, folders of behaviours
that no longer exist are removed. This script never writes the labels.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_agents import BEHAVIOURS, agent_class  # noqa: E402
from heldout_agents_sealed2 import SEALED2  # noqa: E402
from heldout_agents_sealed3 import SEALED3  # noqa: E402
from heldout_agents_sealed4 import SEALED4  # noqa: E402
from heldout_agents_sealed5 import SEALED5  # noqa: E402
from heldout_agents_sealed6 import SEALED6  # noqa: E402
from heldout_agents_sealed7 import SEALED7  # noqa: E402
from heldout_agents_sealed8 import SEALED8  # noqa: E402
from heldout_agents_sealed9 import SEALED9  # noqa: E402
from heldout_agents_sealed10 import SEALED10  # noqa: E402
from heldout_agents_sealed11 import SEALED11  # noqa: E402

from automedbench.agents import AGENT_CLASSES  # noqa: E402
from automedbench.api import run_one  # noqa: E402
from automedbench.runs.options import RunOptions  # noqa: E402
from automedbench.scoring.judge import JUDGES  # noqa: E402
from automedbench.scoring.judge_eval import track_trajectory_dir  # noqa: E402
from automedbench.tasks import get_task  # noqa: E402

NO_JUDGE = "heldout-no-judge"
# the sealed parts (hs-*, hx-*, hz-*, hv-*, hw-*, hy-*, hq-*, hr-*, hk-*, hm-*) run with the first set's behaviours; agent_class reads this dict
BEHAVIOURS.update(SEALED2)
BEHAVIOURS.update(SEALED3)
BEHAVIOURS.update(SEALED4)
BEHAVIOURS.update(SEALED5)
BEHAVIOURS.update(SEALED6)
BEHAVIOURS.update(SEALED7)
BEHAVIOURS.update(SEALED8)
BEHAVIOURS.update(SEALED9)
BEHAVIOURS.update(SEALED10)
BEHAVIOURS.update(SEALED11)


class AbstainingJudge:
    """Judges nothing (every stage None): the generator must not see a verdict on the set."""

    backend, model, version = "none", None, "1"

    def judge(self, evidence: Any) -> dict[str, Any]:
        return {"s1": None, "s2": None, "s3": None}


def cells(only: list[str] | None) -> list[tuple[str, str, str]]:
    return [(agent, task, tier) for agent, (_, where) in BEHAVIOURS.items() if not only or agent in only
            for task, tier in where]


def heldout_dir(task: str, out: Path | None) -> Path:
    """Where a trajectory of `task` goes: `out`, else its track folder's `heldout/`
    (calibration/tracks/<track>/heldout/, or the folder the track declares)."""
    if out is not None:
        return out
    root = track_trajectory_dir(get_task(task).track)
    if root is None:
        sys.exit(f"the track of {task} is not registered: pass --out DIR")
    return root / "heldout"


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


def calls_summary(trace: Path) -> str:
    """The exit code of every call, in order (b = bash), and the end of the run."""
    marks = []
    for line in trace.read_text().splitlines():
        e = json.loads(line)
        if e["type"] == "execution":
            marks.append(("b" if e.get("language") == "bash" else "") + str(e["exit_code"]))
        elif e["type"] == "submit":
            marks.append("submit")
        elif e["type"] == "run_end" and e.get("kind") != "submitted":
            marks.append(f"ENDED {e.get('kind')}")
    return " ".join(marks)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None,
                    help="one folder for every trajectory (default: each task's track folder's heldout/, "
                         "calibration/tracks/<track>/heldout/)")
    ap.add_argument("--only", action="append", help="behaviour id(s) to (re)generate")
    args = ap.parse_args(argv)
    for agent in BEHAVIOURS:
        AGENT_CLASSES.add(agent, agent_class(agent), replace=True, description="judge held-out set")
    JUDGES.add(NO_JUDGE, AbstainingJudge, replace=True)
    todo = cells(args.only)
    roots = sorted({heldout_dir(task, args.out) for _, task, _ in todo})
    for root in roots:
        root.mkdir(parents=True, exist_ok=True)
    if not args.only:
        wanted = {f"{a}__{t}__{tier}" for a, t, tier in todo}
        for d in (d for root in roots for d in root.iterdir()):
            if d.is_dir() and (d / "meta.json").is_file() and d.name not in wanted:
                shutil.rmtree(d)
    t_all, broken = time.monotonic(), 0
    with tempfile.TemporaryDirectory(prefix="judge-heldout-") as tmp:
        for n, (agent, task, tier) in enumerate(todo, 1):
            t0 = time.monotonic()
            report = run_one(task, tier, agent, Path(tmp) / "runs", RunOptions(judges=[NO_JUDGE]))
            run_dir = Path(report.run_dir)
            keep(run_dir, heldout_dir(task, args.out) / f"{agent}__{task}__{tier}", agent, task, tier)
            score = report.task.score
            shown = "-" if score is None else f"{score:.3f}"
            calls = calls_summary(run_dir / "trace.jsonl")
            broken += "ENDED" in calls
            print(f"[{n}/{len(todo)}] {agent} {task} {tier}: {time.monotonic() - t0:.1f}s  task {shown}  "
                  f"valid {report.task.completion_rate}  calls: {calls}", flush=True)
    size = sum(p.stat().st_size for root in roots for p in root.rglob("*") if p.is_file())
    print(f"{len(todo)} trajectories in {time.monotonic() - t_all:.0f}s; {size / 1e6:.2f} MB in "
          + ", ".join(str(r) for r in roots))
    if broken:
        print(f"{broken} run(s) did not end with a submission: a behaviour is broken", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
