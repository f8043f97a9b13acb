"""What the judge's experiments cost (docs/judge.md "What replays cost"), on demo runs.

    PYTHONPATH=src python bench/experiments_cost.py [--agents reference,pilot-no-inspect] [--tasks ...]
                                                    [--repeat 200] [--json]

1. Experiment cost per run: each (agent, task) demo run is made through the real loop and the
   default sandbox, with experiments at its close (the default mode: stop at the first broken
   output a look catches). Printed per run: the replays' wall seconds, the run's own seconds in
   the sandbox (its executions), and their ratio. Goal: ratio <= 0.2.
2. Judge throughput from recorded evidence: every run is judged again `--repeat` times from
   its saved records (trace parsed once), with its experiments and, as the baseline measured in
   the same process, without them. Printed: runs/s for each and their ratio. Goal: >= 100 runs/s.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from automedbench.api import run_one
from automedbench.data import dataset_paths
from automedbench.lifecycle.experiments import run_experiments
from automedbench.runs.layout import RunFiles, RunMeta
from automedbench.runs.options import RunOptions
from automedbench.runs.trace import read_trace
from automedbench.scoring.experiments import load_experiments
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.tasks import get_task

TASKS = ["brain-lesion-seg", "ldct-denoise", "zsr-x4-demo", "xray-marker-det", "modality-patch-cls",
         "vqa-demo-open", "cxr-report-gen"]


def _evidence(run_dir: Path, with_experiments: bool) -> JudgeEvidence:
    files = RunFiles(run_dir)
    meta = RunMeta.model_validate_json(files.meta.read_text())
    task = get_task(meta.run.task)
    return JudgeEvidence(task=task, tier=meta.run.tier, workspace=files.workspace, trace=read_trace(files.trace),
                         conversation=None, case_ids=list(meta.case_ids), data_dir=None,
                         experiments=load_experiments(run_dir) if with_experiments else None)


def _throughput(evidence: list[JudgeEvidence], repeat: int) -> float:
    judge = HeuristicJudge()
    t0 = time.perf_counter()
    for _ in range(repeat):
        for ev in evidence:
            judge.judge(ev)
    return repeat * len(evidence) / (time.perf_counter() - t0)


def _decisions(exp) -> list[tuple]:
    return [(c.call_index, c.decidable, tuple(c.killed)) for c in [*exp.calls, *exp.inputs]]


def _warm_against_fresh(dirs: list[Path]) -> dict:
    totals = {"0": 0.0, "1": 0.0}
    sandbox_s, same, differ = 0.0, 0, []
    for d in dirs:
        meta = RunMeta.model_validate_json(RunFiles(d).meta.read_text())
        task = get_task(meta.run.task)
        public = dataset_paths(task.dataset).public
        recorded = load_experiments(d)
        backend = recorded.backend if recorded is not None else "bwrap"
        outcomes = {}
        for mode in ("0", "1"):
            os.environ["AUTOMEDBENCH_WARM_REPLAYS"] = mode
            exp = run_experiments(d, task, backend, public)
            totals[mode] += exp.cost_s
            outcomes[mode] = _decisions(exp)
        sandbox_s += exp.sandbox_s
        os.environ.pop("AUTOMEDBENCH_WARM_REPLAYS", None)
        if outcomes["0"] == outcomes["1"]:
            same += 1
        else:
            differ.append(d.name)
        print(f"  {d.name[:48]:48s} fresh {totals['0']:7.2f} s  warm {totals['1']:7.2f} s (running totals)", flush=True)
    return {"fresh_s_total": round(totals["0"], 2), "warm_s_total": round(totals["1"], 2),
            "warm_over_fresh": round(totals["1"] / totals["0"], 3) if totals["0"] else None,
            "warm_over_sandbox": round(totals["1"] / sandbox_s, 3) if sandbox_s else None,
            "fresh_over_sandbox": round(totals["0"] / sandbox_s, 3) if sandbox_s else None,
            "runs_decided_alike": same, "runs_decided_differently": differ}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", default="reference,pilot-no-inspect,words-no-work")
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows, dirs = [], []
    with tempfile.TemporaryDirectory(prefix="bench-experiments-") as tmp:
        for agent in args.agents.split(","):
            for task in args.tasks.split(","):
                report = run_one(task, "lite", agent, Path(tmp) / "runs", RunOptions())
                exp = load_experiments(report.run_dir)
                if exp is None:
                    print(f"{agent} {task}: no experiments recorded", file=sys.stderr)
                    continue
                ratio = exp.cost_s / exp.sandbox_s if exp.sandbox_s else 0.0
                rows.append({"agent": agent, "task": task, "looks_replayed": len(exp.calls),
                             "experiment_s": exp.cost_s, "sandbox_s": exp.sandbox_s, "ratio": round(ratio, 3)})
                dirs.append(Path(report.run_dir))
                print(f"{agent:18s} {task:20s} looks {len(exp.calls)}  experiments {exp.cost_s:6.2f} s  "
                      f"run in sandbox {exp.sandbox_s:6.2f} s  ratio {ratio:5.2f}", flush=True)
        with_exp = [_evidence(d, True) for d in dirs]
        without = [_evidence(d, False) for d in dirs]
        _throughput(with_exp[:2], 1)              # warm the caches of both paths alike
        base = _throughput(without, args.repeat)
        rate = _throughput(with_exp, args.repeat)
        print("\nwarm against fresh replays, from the same records:", flush=True)
        warm = _warm_against_fresh(dirs)
    total_exp, total_sb = sum(r["experiment_s"] for r in rows), sum(r["sandbox_s"] for r in rows)
    summary = {"runs": len(rows), "experiment_s_total": round(total_exp, 2), "sandbox_s_total": round(total_sb, 2),
               "ratio_total": round(total_exp / total_sb, 3) if total_sb else None,
               "ratio_median": round(statistics.median(r["ratio"] for r in rows), 3) if rows else None,
               "judge_runs_per_s_with_experiments": round(rate, 1),
               "judge_runs_per_s_baseline_without": round(base, 1),
               "judge_ratio_with_over_without": round(rate / base, 3) if base else None, "warm": warm}
    if args.json:
        print(json.dumps({"runs": rows, "summary": summary}, indent=1))
    else:
        print(f"\nexperiments: {summary['experiment_s_total']} s over {summary['sandbox_s_total']} s in the sandbox "
              f"(ratio {summary['ratio_total']}, median per run {summary['ratio_median']}; goal <= 0.2)")
        print(f"judge from recorded evidence: {summary['judge_runs_per_s_with_experiments']} runs/s with experiments, "
              f"{summary['judge_runs_per_s_baseline_without']} runs/s without (ratio "
              f"{summary['judge_ratio_with_over_without']}; goal >= 100 runs/s)")
        print(f"replays warm {warm['warm_s_total']} s against fresh {warm['fresh_s_total']} s (ratio "
              f"{warm['warm_over_fresh']}); over the runs' sandbox seconds: warm {warm['warm_over_sandbox']}, "
              f"fresh {warm['fresh_over_sandbox']} (goal <= 0.2); decided alike on {warm['runs_decided_alike']} of "
              f"{len(dirs)} runs{'' if not warm['runs_decided_differently'] else ', differently on ' + ', '.join(warm['runs_decided_differently'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
