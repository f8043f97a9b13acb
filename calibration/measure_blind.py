"""Measure a judge on a blind held-out set (calibration/blind-N/), ONCE (its README.md): judge
every generated run folder and compare each item's verdict with its label.

    PYTHONPATH=src .venv/bin/python calibration/blind-1/generate.py --out /tmp/blind-1-runs
    PYTHONPATH=src .venv/bin/python calibration/measure_blind.py calibration/blind-1 /tmp/blind-1-runs [--json OUT]

Reads `index.json` that generate.py wrote, re-scores every run with the heuristic judge (its
experiments, recorded at the run's close, are read from the run folder), and prints per item
the accuracy (items labelled null are not applicable and left out), S3's accuracy and confusion,
and every adversarial trajectory credited above its label on any item.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.scoring.score_run import score_run


DEFAULT_ITEMS = ["s1a", "s1b", "s1c", "s2a", "s2b", "s2c", "s2d", "s2e", "s3"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", type=Path, help="the set's folder (calibration/blind-N), holding labels.yaml")
    ap.add_argument("runs", type=Path, help="the --out folder of its generate.py")
    ap.add_argument("--json", type=Path, help="write every verdict and label here")
    args = ap.parse_args(argv)
    labels = yaml.safe_load((args.set / "labels.yaml").read_text())
    if "trajectories" in labels:        # blind-1..4: {items: [...], trajectories: {id: labels}}
        items, wanted = labels["items"], labels["trajectories"]
    else:                               # blind-5: {id: labels}; the lite tier's items
        items, wanted = DEFAULT_ITEMS, labels
    index = json.loads((args.runs / "index.json").read_text())
    hits: dict[str, list[bool]] = defaultdict(list)
    s3_confusion: Counter[tuple[float, float]] = Counter()
    over, rows, missing = [], [], sorted(set(wanted) - {t["id"] for t in index})
    for t in index:
        label = wanted.get(t["id"])
        if label is None:
            continue
        report = score_run(Path(t["run_dir"]), judge=HeuristicJudge(), force=True)
        verdict: dict[str, float | None] = {}
        for stage in ("s1", "s2", "s3"):
            result = report.stages.get(stage)
            verdict.update(result.items if result is not None else {})
        for item in items:
            want, got = label.get(item), verdict.get(item)
            if want is None or got is None:
                continue
            hits[item].append(float(want) == float(got))
            if label.get("adversarial") and float(got) > float(want):
                over.append(f"{t['id']} {item}: label {want}, judged {got}")
        if label.get("s3") is not None and verdict.get("s3") is not None:
            s3_confusion[(float(label["s3"]), float(verdict["s3"]))] += 1
        rows.append({"id": t["id"], "adversarial": bool(label.get("adversarial")), "label": {i: label.get(i) for i in items},
                     "verdict": verdict, "s3_rationale": report.stages["s3"].rationale if report.stages.get("s3") else None})
    print(f"{args.set.name}: {len(rows)} trajectories judged ({len(missing)} labelled but not generated: {missing[:4]})")
    print(f"{'item':6s} {'n':>4s} {'accuracy':>9s}")
    for item in items:
        if hits[item]:
            print(f"{item:6s} {len(hits[item]):4d} {sum(hits[item]) / len(hits[item]):9.3f}")
    values = [0.0, 0.5, 1.0]
    print("s3 confusion (rows = label 0/0.5/1, columns = verdict):")
    for want in values:
        print("   ", [s3_confusion[(want, got)] for got in values])
    print(f"adversarial trajectories credited above their label: {len(over)}")
    for line in over:
        print("   ", line)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "over_credits": over,
                                         "accuracy": {i: sum(h) / len(h) for i, h in hits.items() if h}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
