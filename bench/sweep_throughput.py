"""Sweep throughput and site build time (issue 10). One command:

    .venv/bin/python bench/sweep_throughput.py [--runs 100] [--site-runs 1000] [--sandbox bwrap|local]

1. `--runs` cells of the scripted `empty` agent on a tiny staged task, run three ways in the
   same process: the local pool with 1 worker (the baseline), 2 workers, and Ray with 2 CPUs.
   Prints runs/minute, the speed-up against 1 worker, and the harness overhead per run:
   the cell's wall time in its worker minus the time spent inside the agent's own code
   (the executions recorded in trace.jsonl). Goals: overhead <= 1 s/run, >= 1.7x from 1 to
   2 workers, Ray within 10 % of the local pool.
2. The static site for `--site-runs` synthetic runs (reports + traces on disk): build time and
   the size of index.html (goal: <= 30 s, index < 2 MB; run pages load on demand).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nibabel as nib
import numpy as np

from automedbench.data import DatasetPaths, write_manifest
from automedbench.api import run_sweep
from automedbench.runs.sweep import RunOptions, SweepSpec
from automedbench.tracks.segmentation import SegmentationTrack


def tiny_task(root: Path) -> tuple[Path, Path]:
    data, tasks = root / "data", root / "tasks"
    paths = DatasetPaths(data / "tiny-lesion")
    cases = []
    for i in range(3):
        cid = f"case_{i:03d}"
        vol = np.zeros((16, 14, 12), np.float32)
        for sub, name in ((paths.public, "image.nii.gz"), (paths.private, "organ.nii.gz"), (paths.private, "lesion.nii.gz")):
            (sub / cid).mkdir(parents=True, exist_ok=True)
            nib.save(nib.Nifti1Image(vol if name == "image.nii.gz" else vol.astype(np.uint8), np.eye(4)), str(sub / cid / name))
        cases.append({"case_id": cid, "lesion_positive": i > 0})
    write_manifest(paths, dataset="tiny-lesion", description="bench", cases=cases, provenance={})
    (tasks / "tiny-seg").mkdir(parents=True)
    src = (SegmentationTrack.tasks_dir / "brain-lesion-seg" / "task.yaml").read_text()
    (tasks / "tiny-seg" / "task.yaml").write_text(
        src.replace("id: brain-lesion-seg", "id: tiny-seg").replace("dataset: mni-brain-lesion", "dataset: tiny-lesion"))
    return data, tasks


def agent_seconds(run_dir: Path) -> float:
    total = 0.0
    for line in (run_dir / "trace.jsonl").read_text().splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("type") == "execution":
            total += float(ev.get("duration_s") or 0)
    return total


def one_config(label: str, spec: SweepSpec, root: Path, **kw) -> dict:
    t0 = time.monotonic()
    results = run_sweep(spec, root, **kw)
    elapsed = time.monotonic() - t0
    ok = [r for r in results if r.status == "done"]
    overhead = [r.wall_s - agent_seconds(r.run_dir) for r in ok]
    row = {"config": label, "runs": len(results), "ok": len(ok), "elapsed_s": elapsed,
           "runs_per_min": 60 * len(results) / elapsed, "overhead_s": float(np.mean(overhead)) if overhead else float("nan"),
           "agent_s": float(np.mean([agent_seconds(r.run_dir) for r in ok])) if ok else float("nan")}
    print(f"  {label:<16} {row['runs_per_min']:7.1f} runs/min  {elapsed:7.1f} s  "
          f"overhead {row['overhead_s']:.2f} s/run (agent code {row['agent_s']:.2f} s/run)  ok {len(ok)}/{len(results)}",
          flush=True)
    return row


def bench_sweeps(n: int, sandbox: str, tmp: Path) -> None:
    data, tasks = tiny_task(tmp)
    spec = SweepSpec(agents=["empty"], tasks=["tiny-seg"], repeats=n,
                     options=RunOptions(sandbox=sandbox, network=False, data_root=str(data), tasks_dirs=[str(tasks)]))
    print(f"sweep of {n} runs (scripted agent `empty`, sandbox {sandbox}, {os.cpu_count()} CPUs)")
    base = one_config("local, 1 worker", spec, tmp / "w1", workers=1)
    two = one_config("local, 2 workers", spec, tmp / "w2", workers=2)
    print(f"  speed-up 1 -> 2 workers: {two['runs_per_min'] / base['runs_per_min']:.2f}x  (goal >= 1.7x)")
    try:
        import ray
    except ImportError:
        print("  ray: not installed (pip install 'automedbench[ray]'); skipped")
        return
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        r = one_config("ray, 2 CPUs", spec, tmp / "ray", executor="ray")
    finally:
        ray.shutdown()
    print(f"  ray / local(2): {r['runs_per_min'] / two['runs_per_min']:.2f}x  (goal within 10 %)")


def bench_site(n: int, tmp: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the repository root: `tests` is a package
    from tests.report.factories import build_report, write_run  # the report tests' factories
    from tests.report.site_fixture import write_trace

    from automedbench.report import collect_reports, write_leaderboard
    rng = random.Random(0)
    root = tmp / "site-runs"
    t0 = time.monotonic()
    agents = [f"agent-{i}" for i in range(8)]
    tasks = [f"task-{i}" for i in range(6)]
    # each run gets the at most 12 per-case pictures scoring places beside its report (a ~15 kB PNG
    # each, the size of the demo's segmentation thumbnails)
    import io
    import json

    import numpy as np
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)).save(buf, "PNG")
    png = buf.getvalue()
    for i in range(n):
        a, t, tier = rng.choice(agents), rng.choice(tasks), rng.choice(["lite", "standard", "pro"])
        errs = [{"code": "NO_PILOT", "category": "verification/recovery", "step": "S3", "evidence": {"call": 3}}] \
            if rng.random() < 0.5 else []
        r = build_report(f"run-{i:05d}", agent=a, task=t, tier=tier, overall=rng.random(), errors=errs,
                         end_reason="harness_error" if rng.random() < 0.03 else "submitted")
        run_dir = write_run(root, r)
        write_trace(run_dir, n_calls=rng.randint(4, 30), fail_call=3 if errs else None)
        pics = run_dir / "pictures"
        index = []
        for k in range(12):
            (pics / f"c{k}").mkdir(parents=True)
            (pics / f"c{k}" / "contours.png").write_bytes(png)
            index.append({"case_id": f"c{k}", "dir": f"c{k}", "value": k / 12, "files": [
                {"name": "contours.png", "caption": "contours", "media_type": "image/png"}]})
        (pics / "index.json").write_text(json.dumps(index))
    print(f"\nsite for {n} synthetic runs with 12 pictures each (written in {time.monotonic() - t0:.1f} s)")
    t0 = time.monotonic()
    reports = collect_reports([root])
    t_collect = time.monotonic() - t0
    index = write_leaderboard(reports, tmp / "site")
    elapsed = time.monotonic() - t0
    size = index.stat().st_size
    total = sum(p.stat().st_size for p in (tmp / "site").rglob("*") if p.is_file())
    print(f"  build {elapsed:.1f} s (collect {t_collect:.1f} s; goal <= 30 s)  index.html {size / 1e6:.2f} MB "
          f"(goal < 2 MB)  whole site {total / 1e6:.1f} MB, {len(list((tmp / 'site' / 'runs').glob('*.html')))} run pages")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--site-runs", type=int, default=1000)
    ap.add_argument("--sandbox", default="bwrap" if shutil.which("bwrap") else "local")
    ap.add_argument("--skip-sweeps", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="amb-bench-") as d:
        tmp = Path(d)
        os.environ.setdefault("AUTOMEDBENCH_JUDGE_CACHE", str(tmp / "judge-cache"))
        if not args.skip_sweeps:
            bench_sweeps(args.runs, args.sandbox, tmp)
        if args.site_runs:
            bench_site(args.site_runs, tmp)


if __name__ == "__main__":
    main()
