"""What the harness's per-output check (scoring/output_checks.py, docs/judge.md "Per-output
checks") costs per unit, against the track's bare `check_case` on the same unit in the same run
(the baseline: what scoring pays for that case anyway).

    PYTHONPATH=src python bench/output_checks_cost.py [--reps 7]

Per demo task: the gold output of one case written into a workspace, checked by a fresh checker
(reference grid loaded, input compared: the pilot's case) and by check_case alone. Prints both
medians and the ratio. The check runs only on calls that write output units, at most 4 a call.
"""
from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from automedbench.api import ensure_dataset
from automedbench.home import home
from automedbench.scoring.output_checks import OutputChecks
from automedbench.tasks import get_task
from automedbench.tracks.base import SubmittedCase

TASKS = ("brain-lesion-seg", "ldct-denoise", "xray-marker-det", "modality-patch-cls")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args(argv)
    data_root = home() / "data"
    for tid in TASKS:
        task = get_task(tid)
        paths = ensure_dataset(task, data_root)
        cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
        tmp = Path(tempfile.mkdtemp(prefix="oc-bench-"))
        gold, ws = tmp / "gold", tmp / "ws"
        gold.mkdir()
        task.track_impl.gold_submission(paths.root, gold, task.options)
        layout = task.track_impl.submission(task.options)
        cid = str(cases[0]["case_id"])
        per_case = layout.kind == "per_case"
        rels = [f"outputs/{cid}/{n}" if per_case else f"outputs/{n}" for n in layout.file_names]
        for rel, name in zip(rels, layout.file_names):
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile((gold / cid / name) if per_case else (gold / name), ws / rel)
        eff = {"written": [{"path": f"/workspace/{r}", "op": "created", "size": (ws / r).stat().st_size,
                            "sha256": hashlib.sha256((ws / r).read_bytes()).hexdigest()} for r in rels]}
        full, bare = [], []
        for _ in range(args.reps):
            checker = OutputChecks(task.track_impl, task.options, cases, paths.private,
                                   workspace=(ws, "/workspace"), public=(paths.public, "/data/public"))
            t0 = time.perf_counter()
            checker(eff)
            full.append(time.perf_counter() - t0)
            _, ref_meta = task.track_impl.load_reference(paths.private / cid, cases[0], task.options)
            sub = SubmittedCase(cid, dir=ws / "outputs" / cid) if per_case else None
            if sub is not None:
                t0 = time.perf_counter()
                task.track_impl.check_case(sub, ref_meta, task.options)
                bare.append(time.perf_counter() - t0)
        f = statistics.median(full) * 1000
        b = statistics.median(bare) * 1000 if bare else None
        ratio = f"{f / b:.1f}x check_case ({b:.1f} ms)" if b else "cohort file (no per-case baseline)"
        print(f"{tid:20s} per-output check {f:7.1f} ms median; {ratio}")
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
