"""What the plausibility relations (tracks/relations.py, docs/judge.md "Plausibility") cost per
unit, against the track's bare `check_case` on the same unit in the same run (the baseline: what
the per-output check and scoring pay for that case anyway).

    PYTHONPATH=src python bench/plausibility_cost.py [--reps 7]

Per demo task with per-case outputs: the gold output of one case, read by `check_case`, then
`Track.plausibility` on what it read (the relations built from the case's public folder and
compared). Prints both medians and the ratio; where the track declares `Values`, also the
percentile comparison alone (`tracks/units.py`, what plausibility was before the relations) and
the ratio against it.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from automedbench.api import demo_tasks, ensure_dataset
from automedbench.home import home
from automedbench.tasks import get_task
from automedbench.tracks.base import SubmittedCase
from automedbench.tracks.relations import Values
from automedbench.tracks.units import not_in_input_units


def _median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args(argv)
    data_root = home() / "data"
    print(f"{'task':20s} {'check_case ms':>14s} {'plausibility ms':>16s} {'ratio':>7s} "
          f"{'percentiles ms':>15s} {'ratio':>7s}  finding")
    for tid in demo_tasks():
        task = get_task(tid)
        track = task.track_impl
        if track.submission(task.options).kind == "cohort":
            continue
        paths = ensure_dataset(task, data_root)
        case = paths.load_manifest()["cases"][0]
        cid = str(case["case_id"])
        gold = Path(tempfile.mkdtemp(prefix="plaus-bench-"))
        track.gold_submission(paths.root, gold, task.options)
        _, meta = track.load_reference(paths.private / cid, case, task.options)
        sub = SubmittedCase(cid, dir=gold / cid)
        check = track.check_case(sub, meta, task.options)
        base = _median_ms(lambda track=track, sub=sub, meta=meta, task=task: track.check_case(sub, meta, task.options),
                          args.reps)
        found = track.plausibility(check.prediction, paths.public / cid, task.options)
        cost = _median_ms(lambda track=track, check=check, paths=paths, cid=cid, task=task:
                          track.plausibility(check.prediction, paths.public / cid, task.options), args.reps)
        values = [r for r in track.relations(check.prediction, paths.public / cid, task.options) if isinstance(r, Values)]
        before = ""
        if values:
            def percentiles_only(track=track, check=check, paths=paths, cid=cid, task=task) -> str:
                # the relation's input read again, as plausibility does
                [v] = [r for r in track.relations(check.prediction, paths.public / cid, task.options)
                       if isinstance(r, Values)]
                return not_in_input_units(v.output, v.input)
            old = _median_ms(percentiles_only, args.reps)
            before = f"{old:15.2f} {cost / old:7.2f}"
        print(f"{tid:20s} {base:14.2f} {cost:16.2f} {cost / base:7.2f} {before or ' ' * 23}  {found or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
