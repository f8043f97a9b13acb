"""Compare what an LLM judge would see of a run: full trajectory vs our digest vs the
reference's head-40 % / tail-40 % character cut, at the same 24k-character budget.

    PYTHONPATH=src python bench/judge_digest.py [RUN_DIR_OR_TRACE ...] [--budget 24000] [--json]

Without arguments: every trace.jsonl under ./runs if there are any, else a few seeded
synthetic long traces (scoring/judge_eval/synthetic.py). Prints, per trace and variant, the
characters, approximate tokens (chars/4), which stages S1..S5 have at least one step in
the text, whether the pilot (first S3 execution) and every failed execution are there.
Goal: the digest represents every stage within the budget.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from automedbench.runs.trace import read_trace
from automedbench.scoring.judge.digest import build_digest, collect_steps, render_full
from automedbench.scoring.judge_eval.synthetic import synthetic_trace

STEP = re.compile(r"^#(\S+) \[S([1-5])\]", re.MULTILINE)


def head_tail(text: str, budget: int) -> str:
    """The reference's way: first 40 % and last 40 % of the budget from the raw text."""
    if len(text) <= budget:
        return text
    n = int(budget * 0.4)
    return text[:n] + "\n[... middle cut ...]\n" + text[-n:]


def coverage(text: str, steps) -> dict:
    present = {(m.group(1), f"s{m.group(2)}") for m in STEP.finditer(text)}
    calls = {c for c, _ in present}
    pilot = next((s for s in steps if s.pilot), None)
    failed = [s for s in steps if s.failed]
    return {
        "stages": sorted({s for _, s in present}),
        "pilot": None if pilot is None else str(pilot.call_index) in calls,
        "failed_kept": f"{sum(str(s.call_index) in calls for s in failed)}/{len(failed)}",
    }


def traces_from(args: list[str]) -> list[tuple[str, list]]:
    paths: list[Path] = []
    for a in args or (["runs"] if Path("runs").is_dir() else []):
        p = Path(a)
        paths += [p] if p.is_file() else sorted(p.rglob("trace.jsonl"))
    out = [(str(p), read_trace(p)) for p in paths]
    out = [(n, t) for n, t in out if t]
    if out:
        return out
    return [("synthetic small (8 setup, 20 cohort, 2k logs)", synthetic_trace(setup_calls=8, cohort_calls=20, log_chars=2000)),
            ("synthetic medium (20 setup, 60 cohort, 6k logs)", synthetic_trace(setup_calls=20, cohort_calls=60, log_chars=6000)),
            ("synthetic long (40 setup, 150 cohort, 8k logs)", synthetic_trace(setup_calls=40, cohort_calls=150, log_chars=8000, seed=1)),
            ("synthetic huge (80 setup, 400 cohort, 8k logs)", synthetic_trace(setup_calls=80, cohort_calls=400, log_chars=8000, seed=2))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--budget", type=int, default=24000)
    ap.add_argument("--json", action="store_true")
    ns = ap.parse_args(argv)
    rows = []
    all_ok = True
    for name, trace in traces_from(ns.paths):
        steps, _ = collect_steps(trace)
        full = render_full(trace)
        t0 = time.perf_counter()
        digest = build_digest(trace, ns.budget)
        dt = time.perf_counter() - t0
        present_stages = sorted({s.stage for s in steps})
        for variant, text in (("full", full), ("digest", digest), ("head40/tail40", head_tail(full, ns.budget))):
            cov = coverage(text, steps)
            row = {"trace": name, "variant": variant, "chars": len(text), "approx_tokens": len(text) // 4,
                   **cov, "stages_in_trace": present_stages}
            if variant == "digest":
                row["build_s"] = round(dt, 4)
                all_ok &= cov["stages"] == present_stages and len(text) <= ns.budget
            rows.append(row)
    if ns.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"budget: {ns.budget} chars (~{ns.budget // 4} tokens)")
        cur = None
        for r in rows:
            if r["trace"] != cur:
                cur = r["trace"]
                print(f"\n{cur}  (stages in trace: {' '.join(s.upper() for s in r['stages_in_trace'])})")
                print(f"  {'variant':<14}{'chars':>9}{'~tokens':>9}  {'stages represented':<22}{'pilot':<7}failed kept")
            st = " ".join(s.upper() for s in r["stages"]) or "-"
            print(f"  {r['variant']:<14}{r['chars']:>9}{r['approx_tokens']:>9}  {st:<22}{str(r['pilot']):<7}{r['failed_kept']}"
                  + (f"   (built in {r['build_s']*1000:.0f} ms)" if "build_s" in r else ""))
        print("\nGOAL", "MET: every stage represented by the digest within budget" if all_ok else "NOT MET")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
