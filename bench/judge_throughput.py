"""Heuristic judging throughput: judge v3 (facts from effects) against the previous judge
(v2, words and tags) on the same synthetic long traces, in the same process.

    PYTHONPATH=src python bench/judge_throughput.py [--n 1000] [--rev 394f069] [--json]

Each trace is scoring/judge_eval/synthetic.py's long struggling run (20 setup calls with failed
installs, a failing then fixed pilot, 60 batch calls with verbose logs) with effects added
in the recorded shape: setup writes method.py and opens one input, the pilot writes case
001's output, the checks open it, the batch writes every other case. The previous judge is
loaded from git (`--rev`, the last commit with heuristic v2); without git it is skipped.
The same traces are also judged as a schema-1.6 run records them (docs/judge.md "Per-output
checks"): each output-writing call carries the harness's checks with the content facts of what
it wrote, the pilot reads its output back, and the looks print a shape the facts are compared
with. Prints runs/s for each and the ratio with and without the content facts (the plan files
are read once per run by all). Goal: >= 100 runs/s with the content facts.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from automedbench.runs.models import Effects, OutputCheck, WrittenFile
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge.heuristic import HeuristicJudge, clear_caches
from automedbench.scoring.judge_eval.synthetic import synthetic_trace
from automedbench.tasks import get_task

V2_PATH = "src/automedbench/scoring/judge/heuristic.py"


def with_effects(trace):
    """Effects for the synthetic run (see the module doc)."""
    pilot_out = "/workspace/outputs/case_001/organ.nii.gz"
    batch_n = 0
    for ev in trace:
        if ev.type != "execution":
            continue
        code = ev.stage or ""
        written, read = [], []
        if code == "s2" and ev.exit_code == 0:
            written, read = [WrittenFile(path="/workspace/method.py", op="modified", size=900, sha256="ab" * 32)], \
                ["/data/public/case_001/image.nii.gz"]
        elif code == "s3":
            written = [WrittenFile(path=pilot_out, op="modified", size=4096, sha256=f"{ev.call_index:064x}")]
            read = ["/workspace/method.py", pilot_out]
        elif code == "s4":
            batch_n += 1
            written = [WrittenFile(path=f"/workspace/outputs/case_{100 + batch_n:03d}/organ.nii.gz", op="created",
                                   size=4096, sha256=f"{batch_n:064x}")]
            read = ["/workspace/method.py"]
        ev.effects = Effects(written=written, read=read)
    return trace


def with_content_facts(trace):
    """The schema-1.6 records on top of with_effects: per-output checks with content facts, the
    pilot's read-back of its output, and looks that print the output's shape."""
    for ev in with_effects(trace):
        if ev.type != "execution" or ev.effects is None:
            continue
        units = [w for w in ev.effects.written if "/outputs/" in w.path]
        ev.output_checks = [OutputCheck(path=w.path.rsplit("/", 1)[0], case_id=w.path.split("/")[-2],
                                        files={w.path: w.sha256}, valid=True, non_trivial=True,
                                        facts={w.path: {"kind": "volume", "facts": {"shape": [99, 117, 95],
                                                                                      "dtype": "uint8"}}})
                            for w in units[:4]] or None
        if ev.stage == "s3":
            ev.effects.read_back = [w.path for w in units]
            ev.stdout = (ev.stdout or "") + "\norgan shape (99, 117, 95) values [0 1]\n"
    return trace


def load_v2(rev: str):
    try:
        root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                              check=True).stdout.strip()
        src = subprocess.run(["git", "-C", root, "show", f"{rev}:{V2_PATH}"], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    # load it inside the judge package so its relative imports resolve
    name = "automedbench.scoring.judge._heuristic_previous"
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(name, fh.name)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "automedbench.scoring.judge"
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod.HeuristicJudge()


def runs_per_s(judge, evidences) -> float:
    """Each run judged afresh: the judge's caches of parsed scripts and plot facts are cleared
    between runs (distinct runs share no code in a sweep; the synthetic traces repeat theirs)."""
    t0 = time.perf_counter()
    for ev in evidences:
        clear_caches()
        judge.judge(ev)
    return len(evidences) / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rev", default="394f069")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    task = get_task("brain-lesion-seg")
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "plan").mkdir()
        (ws / "plan" / "plan.md").write_text("# Plan\n1. a\n2. b\n3. c\n")
        cases = [f"case_{i:03d}" for i in range(200)]
        evidences = [JudgeEvidence(task, "standard", ws, with_effects(synthetic_trace(seed=i)), None, case_ids=cases)
                     for i in range(args.n)]
        content = [JudgeEvidence(task, "standard", ws, with_content_facts(synthetic_trace(seed=i)), None,
                                 case_ids=cases) for i in range(args.n)]
        n_events = sum(len(e.trace) for e in evidences) / len(evidences)
        out = {"traces": args.n, "events_per_trace": round(n_events), "v3_runs_per_s": round(runs_per_s(HeuristicJudge(), evidences), 1)}
        out["content_facts_runs_per_s"] = round(runs_per_s(HeuristicJudge(), content), 1)
        out["content_over_plain"] = round(out["content_facts_runs_per_s"] / out["v3_runs_per_s"], 3)
        previous = load_v2(args.rev)
        try:
            out["previous_runs_per_s"] = round(runs_per_s(previous, evidences), 1) if previous else None
        except Exception as exc:   # the old judge reads fields the code no longer has: say so, keep the rest
            print(f"previous judge ({args.rev}) could not run on today's code: {type(exc).__name__}: {exc}",
                  file=sys.stderr)
            out["previous_runs_per_s"] = None
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['traces']} synthetic traces, {out['events_per_trace']} events each: judge v3 "
              f"{out['v3_runs_per_s']} runs/s; with content facts and per-output checks "
              f"{out['content_facts_runs_per_s']} runs/s (ratio {out['content_over_plain']}); previous judge "
              f"({args.rev}) {out['previous_runs_per_s'] if out['previous_runs_per_s'] is not None else 'not available'}"
              " runs/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
