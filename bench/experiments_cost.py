"""What the judge's experiments cost (docs/judge.md "What replays cost"), on demo runs.

    PYTHONPATH=src python bench/experiments_cost.py [--agents reference,pilot-no-inspect] [--tasks ...]
                                                    [--repeat 200] [--json] [--keep DIR]

1. Experiment cost per run: each (agent, task) demo run is made through the real loop and the
   default sandbox, with experiments at its close (the default mode: stop at the first broken
   output a look catches; the mutant memo carried from run to run, as in a sweep's process).
   Printed per run: the replays' wall seconds, the run's own seconds in the sandbox (its
   executions), and their ratio. Goal: ratio <= 0.2.
2. Judge throughput from recorded evidence: every run is judged again `--repeat` times from
   its saved records (trace parsed once), with its experiments and, as the baseline measured in
   the same process, without them. Printed: runs/s for each and their ratio, and runs per CPU
   second of the judging process (a shared machine's load moves it least). Goal: >= 100 runs/s.
3. The same records replayed again three ways, run by run: fresh interpreters without the
   mutant memo (the baseline), the warm interpreter without it, the warm interpreter with a memo
   carried from run to run (empty at the start of this part); the decisions must be alike.
`--keep DIR` makes the runs under DIR and leaves them there (to profile the judge on them).
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
from automedbench.lifecycle import experiments
from automedbench.lifecycle.experiments import run_experiments
from automedbench.runs.layout import RunFiles, RunMeta
from automedbench.runs.options import RunOptions
from automedbench.runs.trace import read_trace
from automedbench.scoring.experiments import RunExperiments, load_experiments
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


def _throughput(evidence: list[JudgeEvidence], repeat: int) -> tuple[float, float]:
    """Runs judged per wall second, and per CPU second of this process (what a shared machine's
    load moves least)."""
    judge = HeuristicJudge()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        for ev in evidence:
            judge.judge(ev)
    n = repeat * len(evidence)
    return n / (time.perf_counter() - t0), n / max(1e-9, time.process_time() - c0)


def _decisions(exp: RunExperiments) -> list[tuple]:
    return [(c.call_index, c.decidable, tuple(c.killed)) for c in [*exp.calls, *exp.inputs]]


# the ways the same records are replayed again: fresh interpreters with no mutant memo (the
# baseline), the warm interpreter with no memo, and the warm interpreter with the memo carried
# from run to run as a sweep's process carries it (docs/judge.md "What replays cost")
MODES = {"fresh": ("0", False), "warm": ("1", False), "warm+memo": ("1", True)}


def _warm_against_fresh(dirs: list[Path]) -> dict:
    totals = dict.fromkeys(MODES, 0.0)
    sandbox_s, same, differ = 0.0, 0, []
    carried = experiments.MutantMemo(experiments.MEMO_BYTES)     # empty: no run of section 1 in it
    for d in dirs:
        meta = RunMeta.model_validate_json(RunFiles(d).meta.read_text())
        task = get_task(meta.run.task)
        public = dataset_paths(task.dataset).public
        recorded = load_experiments(d)
        backend = recorded.backend if recorded is not None else "bwrap"
        outcomes = {}
        for mode, (warm_switch, with_memo) in MODES.items():
            os.environ["AUTOMEDBENCH_WARM_REPLAYS"] = warm_switch
            experiments.MEMO = carried if with_memo else experiments.MutantMemo(0)
            exp = run_experiments(d, task, backend, public)
            totals[mode] += exp.cost_s
            outcomes[mode] = _decisions(exp)
        sandbox_s += exp.sandbox_s
        os.environ.pop("AUTOMEDBENCH_WARM_REPLAYS", None)
        if len({tuple(o) for o in outcomes.values()}) == 1:
            same += 1
        else:
            differ.append(d.name)
        print(f"  {d.name[:48]:48s} " + "  ".join(f"{m} {totals[m]:7.2f} s" for m in MODES) + " (running totals)",
              flush=True)
    experiments.MEMO = carried
    fresh, warm, memo = totals["fresh"], totals["warm"], totals["warm+memo"]
    return {"fresh_s_total": round(fresh, 2), "warm_s_total": round(warm, 2), "warm_memo_s_total": round(memo, 2),
            "warm_over_fresh": round(warm / fresh, 3) if fresh else None,
            "warm_memo_over_fresh": round(memo / fresh, 3) if fresh else None,
            "warm_over_sandbox": round(warm / sandbox_s, 3) if sandbox_s else None,
            "warm_memo_over_sandbox": round(memo / sandbox_s, 3) if sandbox_s else None,
            "fresh_over_sandbox": round(fresh / sandbox_s, 3) if sandbox_s else None,
            "runs_decided_alike": same, "runs_decided_differently": differ}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", default="reference,pilot-no-inspect,words-no-work")
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", type=Path, default=None, help="make the runs under this folder and keep them")
    args = ap.parse_args(argv)
    rows, dirs = [], []
    with tempfile.TemporaryDirectory(prefix="bench-experiments-") as tmp_dir:
        tmp = args.keep or Path(tmp_dir)
        for agent in args.agents.split(","):
            for task in args.tasks.split(","):
                report = run_one(task, "lite", agent, Path(tmp) / "runs", RunOptions())
                exp = load_experiments(report.run_dir)
                if exp is None:
                    print(f"{agent} {task}: no experiments recorded", file=sys.stderr)
                    continue
                ratio = exp.cost_s / exp.sandbox_s if exp.sandbox_s else 0.0
                decided = [*exp.calls, *exp.inputs]
                rows.append({"agent": agent, "task": task, "looks_replayed": len(exp.calls),
                             "calls_replayed": len(decided),
                             "calls_decided_warm": sum(c.interpreter == "warm" for c in decided),
                             "experiment_s": exp.cost_s, "sandbox_s": exp.sandbox_s, "ratio": round(ratio, 3)})
                dirs.append(Path(report.run_dir))
                print(f"{agent:18s} {task:20s} looks {len(exp.calls)}  experiments {exp.cost_s:6.2f} s  "
                      f"run in sandbox {exp.sandbox_s:6.2f} s  ratio {ratio:5.2f}", flush=True)
        with_exp = [_evidence(d, True) for d in dirs]
        without = [_evidence(d, False) for d in dirs]
        _throughput(with_exp[:2], 1)              # warm the caches of both paths alike
        base, base_cpu = _throughput(without, args.repeat)
        rate, rate_cpu = _throughput(with_exp, args.repeat)
        print("\nwarm against fresh replays, from the same records:", flush=True)
        warm = _warm_against_fresh(dirs)
    total_exp, total_sb = sum(r["experiment_s"] for r in rows), sum(r["sandbox_s"] for r in rows)
    summary = {"runs": len(rows), "experiment_s_total": round(total_exp, 2), "sandbox_s_total": round(total_sb, 2),
               "ratio_total": round(total_exp / total_sb, 3) if total_sb else None,
               "ratio_median": round(statistics.median(r["ratio"] for r in rows), 3) if rows else None,
               "calls_replayed": sum(r["calls_replayed"] for r in rows),
               "calls_decided_warm": sum(r["calls_decided_warm"] for r in rows),
               "judge_runs_per_s_with_experiments": round(rate, 1),
               "judge_runs_per_s_baseline_without": round(base, 1),
               "judge_ratio_with_over_without": round(rate / base, 3) if base else None,
               "judge_runs_per_cpu_s_with_experiments": round(rate_cpu, 1),
               "judge_runs_per_cpu_s_baseline_without": round(base_cpu, 1), "warm": warm}
    if args.json:
        print(json.dumps({"runs": rows, "summary": summary}, indent=1))
    else:
        print(f"\nexperiments: {summary['experiment_s_total']} s over {summary['sandbox_s_total']} s in the sandbox "
              f"(ratio {summary['ratio_total']}, median per run {summary['ratio_median']}; goal <= 0.2); "
              f"{summary['calls_decided_warm']} of {summary['calls_replayed']} replayed calls decided warm")
        print(f"judge from recorded evidence: {summary['judge_runs_per_s_with_experiments']} runs/s with experiments, "
              f"{summary['judge_runs_per_s_baseline_without']} runs/s without (ratio "
              f"{summary['judge_ratio_with_over_without']}; goal >= 100 runs/s); per CPU second of the judge's "
              f"process: {summary['judge_runs_per_cpu_s_with_experiments']} with, "
              f"{summary['judge_runs_per_cpu_s_baseline_without']} without")
        print(f"replays warm {warm['warm_s_total']} s, warm with the mutant memo {warm['warm_memo_s_total']} s, "
              f"against fresh {warm['fresh_s_total']} s (ratios {warm['warm_over_fresh']}, "
              f"{warm['warm_memo_over_fresh']}); over the runs' sandbox seconds: warm {warm['warm_over_sandbox']}, "
              f"warm with the memo {warm['warm_memo_over_sandbox']}, fresh {warm['fresh_over_sandbox']} "
              f"(goal <= 0.2); decided alike on {warm['runs_decided_alike']} of "
              f"{len(dirs)} runs{'' if not warm['runs_decided_differently'] else ', differently on ' + ', '.join(warm['runs_decided_differently'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
