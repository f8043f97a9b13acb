"""Benchmark: scoring a segmentation submission, ours vs the reference's way, in one run.

    python bench/score_segmentation.py [--cases 20] [--shape 512 512 96] [--keep DIR] [--repeat 3]

Builds a submission of CT-sized uint8 .nii.gz masks (organ + lesion per case, prediction and
reference), then times, each in a fresh child process (so peak RSS is per method):
  floor     only decompressing every file, nothing else: serially with zlib and with ISA-L
            (as our reader does), and in parallel with the scorer's inflate and thread count
            (the fair floor for a threaded scorer: comparing it with a serial floor would
            credit the threads to the code)
  baseline  the reference harness's way: nibabel get_fdata() -> float64, > 0.5, numpy Dice,
            one case after another
  ours      automedbench's scorer (score_workspace: strict format checks + Dice, threads)
and checks that both give identical Dice (|Δ| < 1e-9). Each phase runs --repeat times and the
fastest run is reported (on a shared machine the minimum is the least noisy estimate).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FILES = ("organ.nii.gz", "lesion.nii.gz")


def make_data(root: Path, n_cases: int, shape: tuple[int, int, int]) -> None:
    import nibabel as nib
    rng = np.random.default_rng(0)
    zz, yy, xx = np.ogrid[:shape[0], :shape[1], :shape[2]]
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        c = np.array(shape) / 2 + rng.normal(0, 10, 3)
        r = np.array(shape) * rng.uniform(0.2, 0.3, 3)
        organ = (((zz - c[0]) / r[0]) ** 2 + ((yy - c[1]) / r[1]) ** 2 + ((xx - c[2]) / r[2]) ** 2 <= 1)
        lc = c + rng.normal(0, 5, 3)
        lesion = organ & ((((zz - lc[0]) / 25) ** 2 + ((yy - lc[1]) / 20) ** 2 + ((xx - lc[2]) / 8) ** 2) <= 1)
        shift = rng.integers(1, 4)
        for side, arrays in (("private", (organ, lesion)), ("ws/outputs", (np.roll(organ, shift, 0), np.roll(lesion, shift, 1)))):
            d = root / side / cid
            d.mkdir(parents=True, exist_ok=True)
            for name, arr in zip(FILES, arrays):
                nib.save(nib.Nifti1Image(arr.astype(np.uint8), np.eye(4)), str(d / name))
    (root / "cases.json").write_text(json.dumps([f"case_{i:03d}" for i in range(n_cases)]))


def phase_floor(root: Path) -> dict:
    import zlib
    n = 0
    for f in sorted(root.rglob("*.nii.gz")):
        n += len(zlib.decompress(f.read_bytes(), 47))
    return {"bytes": n}


def phase_floor_isal(root: Path) -> dict:
    """The same floor with the inflate our reader uses (ISA-L), still serial."""
    from isal import igzip
    n = 0
    for f in sorted(root.rglob("*.nii.gz")):
        n += len(igzip.decompress(f.read_bytes()))
    return {"bytes": n}


def scorer_workers() -> int:
    """The scorer's thread count (scoring/task_score.py); the parallel floor uses the same."""
    try:
        from automedbench.scoring.task_score import MAX_WORKERS
        return int(MAX_WORKERS)
    except ImportError:  # the constant moved: the scorer's documented default
        return max(1, min(4, os.cpu_count() or 1))


def phase_floor_parallel(root: Path) -> dict:
    """Decompress every file with the reader's inflate, on the scorer's number of threads
    (zlib and ISA-L release the GIL while inflating)."""
    from concurrent.futures import ThreadPoolExecutor

    from automedbench.tracks.nifti_io import _decompress  # the reader's own (ISA-L, else zlib)
    files = sorted(root.rglob("*.nii.gz"))
    workers = scorer_workers()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        n = sum(pool.map(lambda f: len(_decompress(f.read_bytes())), files))
    return {"bytes": n, "workers": workers}


def phase_baseline(root: Path) -> dict:
    import nibabel as nib
    dice = {}
    for cid in json.loads((root / "cases.json").read_text()):
        for name in FILES:
            pred = nib.load(str(root / "ws/outputs" / cid / name)).get_fdata() > 0.5
            ref = nib.load(str(root / "private" / cid / name)).get_fdata() > 0.5
            denom = pred.sum() + ref.sum()
            dice[f"{cid}/{name}"] = 1.0 if denom == 0 else float(2 * (pred & ref).sum() / denom)
    return {"dice": dice}


def phase_ours(root: Path) -> dict:
    from automedbench.scoring.task_score import score_workspace
    from automedbench.tracks.segmentation import SegmentationOptions, SegmentationTrack
    cases = json.loads((root / "cases.json").read_text())
    result, _ = score_workspace(SegmentationTrack(), root / "ws", root / "private", [{"case_id": c} for c in cases],
                                SegmentationOptions(variant="organ_lesion"))
    dice = {}
    for c in result.per_case:
        assert c.valid, c.reason
        dice[f"{c.case_id}/organ.nii.gz"] = c.metrics["organ_dice"]
        dice[f"{c.case_id}/lesion.nii.gz"] = c.metrics["lesion_dice"]
    return {"dice": dice}


def run_child(phase: str, root: Path, repeat: int = 1) -> tuple[float, float, dict]:
    """(seconds of work, excluding interpreter start and imports — the fastest of `repeat`
    runs; peak RSS MiB; result) of one phase, each run in a fresh process."""
    best = None
    for _ in range(repeat):
        out = root / f"{phase}.json"
        proc = subprocess.Popen([sys.executable, __file__, "--phase", phase, "--root", str(root)])
        if proc.wait() != 0:
            raise SystemExit(f"phase {phase} failed")
        result = json.loads(out.read_text())
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best["seconds"], best["peak_rss_mib"], best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--shape", type=int, nargs=3, default=[512, 512, 96])
    ap.add_argument("--keep", type=Path, help="reuse/keep the generated data in this folder")
    ap.add_argument("--repeat", type=int, default=3, help="runs per phase; the fastest is reported")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        fn = {"floor": phase_floor, "floor_isal": phase_floor_isal, "floor_parallel": phase_floor_parallel,
              "baseline": phase_baseline, "ours": phase_ours}[args.phase]
        if args.phase in ("ours", "floor_parallel"):  # imports are not part of the work being timed
            import automedbench.scoring.task_score  # noqa: F401
            import automedbench.tracks.nifti_io  # noqa: F401
        import nibabel  # noqa: F401
        start = time.perf_counter()
        result = fn(args.root)
        result["seconds"] = time.perf_counter() - start
        # VmHWM is this process's own peak RSS (rusage would include the forked parent's)
        hwm = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM"))
        result["peak_rss_mib"] = int(hwm.split()[1]) / 1024
        (args.root / f"{args.phase}.json").write_text(json.dumps(result))
        return

    root = args.keep or Path(tempfile.mkdtemp(prefix="amb-bench-seg-"))
    if not (root / "cases.json").is_file():
        t = time.perf_counter()
        make_data(root, args.cases, tuple(args.shape))
        print(f"generated {args.cases} cases of {tuple(args.shape)} (organ+lesion, pred+ref) in {time.perf_counter() - t:.1f}s")
    uncompressed_case_mib = np.prod(args.shape) / 2**20
    try:
        floor_s, floor_rss, _ = run_child("floor", root, args.repeat)
        isal_s, _, _ = run_child("floor_isal", root, args.repeat)
        par_s, _, par = run_child("floor_parallel", root, args.repeat)
        base_s, base_rss, base = run_child("baseline", root, args.repeat)
        ours_s, ours_rss, ours = run_child("ours", root, args.repeat)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    worst = max(abs(base["dice"][k] - ours["dice"][k]) for k in base["dice"])
    print(f"cases: {args.cases} x {tuple(args.shape)} uint8, 2 masks/case, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}; fastest of {args.repeat} runs per phase; "
          f"one uncompressed mask = {uncompressed_case_mib:.0f} MiB")
    workers = par["workers"]
    print(f"floor (zlib inflate, serial)   : {floor_s:7.2f} s   peak RSS {floor_rss:7.0f} MiB")
    print(f"floor (ISA-L inflate, serial)  : {isal_s:7.2f} s   zlib / ISA-L: {floor_s / isal_s:.2f}x")
    print(f"floor (reader inflate, {workers} thr.) : {par_s:7.2f} s   (same parallelism as the scorer)")
    print(f"baseline (get_fdata float64)   : {base_s:7.2f} s   peak RSS {base_rss:7.0f} MiB")
    print(f"ours (score_workspace, {workers} thr.) : {ours_s:7.2f} s   peak RSS {ours_rss:7.0f} MiB")
    print(f"speed-up vs baseline: {base_s / ours_s:.1f}x   "
          f"ours / parallel floor ({workers} thr.): {ours_s / par_s:.2f}x   "
          f"ours / serial zlib floor: {ours_s / floor_s:.2f}x   "
          f"max |dice diff|: {worst:.2e}   identical: {worst < 1e-9}")


if __name__ == "__main__":
    main()
