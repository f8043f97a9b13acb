"""Benchmark: scoring an enhancement submission, ours vs a one-by-one scikit-image loop.

    python bench/score_enhancement.py [--cases 100] [--size 512] [--workers 2] [--repeats 3] [--path workspace|metric]

Writes a submission of `--cases` float32 images of size×size (a real CT slice from
pydicom-data, rotated/mirrored per case, as the reference; the reference plus seeded noise and
blur as the prediction), then times, in the same process, best of `--repeats`:
  baseline  for each case in turn: np.load both files, skimage.metrics.structural_similarity
            and peak_signal_noise_ratio (float64, data_range = reference max − min)
  ours      --path workspace (default): the harness's real path, scoring.task_score.score_workspace
            with the enhancement track (strict .npy checks, then metrics/ssim.py — the same
            arithmetic in place — on a thread pool of `--workers`; scipy's filters and numpy
            release the GIL);
            --path metric: only np.load + metrics/ssim.ssim_psnr on the thread pool (needs numpy,
            scipy, scikit-image only: for machines without the harness's dependencies)
and checks that every case's SSIM and PSNR are IDENTICAL (==) between the two.
Prints both times and the ratio (goal: >= 1.8x on 2 cores).
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np


def make_data(root: Path, n: int, size: int) -> list[dict]:
    from scipy.ndimage import gaussian_filter, zoom

    try:
        from automedbench.tracks.enhancement.data.demo import _ct_slice
        hu, _ = _ct_slice("693_UNCI.dcm", 0)                       # 256², HU
        print("reference images: 693_UNCI.dcm (pydicom-data), HU")
    except ImportError:                                            # no pydicom / pydantic here
        from skimage.data import shepp_logan_phantom
        hu = shepp_logan_phantom() * 2000 - 1000
        print("reference images: Shepp-Logan phantom (scikit-image; pydicom-data not installed)")
    base = zoom(hu, size / hu.shape[0], order=1)[:size, :size]
    rng = np.random.default_rng(0)
    cases = []
    for i in range(n):
        cid = f"case_{i:03d}"
        ref = np.rot90(base, i % 4)
        ref = ref[:, ::-1] if (i // 4) % 2 else ref
        pred = gaussian_filter(ref, 0.5 + (i % 3) * 0.3) + rng.normal(0, 10 + i % 20, ref.shape)
        for side, name, arr in (("private", "reference.npy", ref), ("ws/outputs", "enhanced.npy", pred)):
            d = root / side / cid
            d.mkdir(parents=True, exist_ok=True)
            np.save(d / name, np.ascontiguousarray(arr, dtype=np.float32))
        cases.append({"case_id": cid, "variant": "denoise"})
    return cases


def baseline(root: Path, cases: list[dict]) -> list[tuple[float, float]]:
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    out = []
    for c in cases:
        ref = np.load(root / "private" / c["case_id"] / "reference.npy").astype(np.float64)
        pred = np.load(root / "ws" / "outputs" / c["case_id"] / "enhanced.npy").astype(np.float64)
        r = float(ref.max()) - float(ref.min())
        out.append((structural_similarity(ref, pred, data_range=r), peak_signal_noise_ratio(ref, pred, data_range=r)))
    return out


def ours(root: Path, cases: list[dict], workers: int) -> list[tuple[float, float]]:
    from automedbench.scoring.task_score import score_workspace
    from automedbench.tracks.enhancement import TRACK, EnhancementOptions

    result, _ = score_workspace(TRACK, root / "ws", root / "private", cases,
                                EnhancementOptions(variant="denoise", lpips=False), workers=workers)
    assert all(c.status == "ok" for c in result.per_case), [c.reason for c in result.per_case if c.status != "ok"]
    return [(c.metrics["ssim"], c.metrics["psnr"]) for c in result.per_case]


def ours_metric(root: Path, cases: list[dict], workers: int) -> list[tuple[float, float]]:
    from concurrent.futures import ThreadPoolExecutor

    from automedbench.metrics.ssim import ssim_psnr

    def one(c: dict) -> tuple[float, float]:
        ref = np.load(root / "private" / c["case_id"] / "reference.npy").astype(np.float64)
        pred = np.load(root / "ws" / "outputs" / c["case_id"] / "enhanced.npy").astype(np.float64)
        s, p, _ = ssim_psnr(ref, pred)
        return s, p

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, cases))


def best_of(repeats: int, fn, *args):
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times), value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--path", choices=("workspace", "metric"), default="workspace")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-enh-"))
    try:
        cases = make_data(root, args.cases, args.size)
        fn = ours if args.path == "workspace" else ours_metric
        fn(root, cases[:2], 1)                                     # warm imports
        baseline(root, cases[:2])
        t_base, v_base = best_of(args.repeats, baseline, root, cases)
        t_ours, v_ours = best_of(args.repeats, fn, root, cases, args.workers)
        identical = v_base == v_ours
        print(f"{args.cases} cases of {args.size}x{args.size}, {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.1f}, best of {args.repeats}")
        print(f"baseline (scikit-image, one by one): {t_base:8.2f} s")
        what = "score_workspace" if args.path == "workspace" else "metrics.ssim"
        print(f"ours ({what}, {args.workers} threads):   {t_ours:8.2f} s")
        print(f"identical SSIM and PSNR on every case: {identical}")
        print(f"ratio: {t_base / t_ours:.2f}x")
        if not identical:
            raise SystemExit("values differ")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
