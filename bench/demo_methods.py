"""Benchmark: speed and accuracy of the classical demo methods, reproducible in one command.

    PYTHONPATH=src python bench/demo_methods.py [--seeds 0 1 2] [--cases 6]
        [--lesion PATH] [--tissue PATH] [--keep DIR]

Builds mni-brain-lesion and mni-brain-tissue (one copy per seed) in a temporary directory,
runs each method script's ``main([prog, image, outdir])`` in this process, one case at a
time, and prints per seed and overall:
  s/case     mean wall seconds per case of main() (imports excluded: the module is imported,
             and run once on the first case, before timing starts); cpu: mean CPU seconds of
             this process (steadier than wall time on a shared machine)
  lesion     organ Dice (mean, min); lesion Dice on lesion-positive cases (mean, min);
             predicted lesion voxels on lesion-negative cases (max)
  tissue     macro Dice over CSF/GM/WM (mean, min)
--lesion/--tissue run another copy of a script (e.g. an old version from
``git show REV:src/automedbench/tracks/segmentation/methods/brain_lesion_classical.py > /tmp/old.py``).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nibabel as nib
import numpy as np

from automedbench.datasets import stage

METHODS = Path(__file__).resolve().parents[1] / "src" / "automedbench" / "tracks" / "segmentation" / "methods"


def dice(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(bool), b.astype(bool)
    s = int(a.sum()) + int(b.sum())
    return 1.0 if s == 0 else 2.0 * float((a & b).sum()) / s


def load_module(path: Path, name: str):
    # as when run as a script: the method imports its helpers (brain_common) from its folder
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def arr(p: Path) -> np.ndarray:
    return np.asanyarray(nib.load(str(p)).dataobj)


def run_cases(mod, ds, out: Path) -> tuple[list[float], list[float], dict[str, Path]]:
    times, cpu, outs = [], [], {}
    first = ds.case_ids()[0]
    with contextlib.redirect_stdout(io.StringIO()):      # warm-up: lazy imports, caches
        mod.main([mod.__name__, str(ds.public / first / "image.nii.gz"), str(out / "warmup")])
    for cid in ds.case_ids():
        o = out / cid
        t0, c0 = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            rc = mod.main([mod.__name__, str(ds.public / cid / "image.nii.gz"), str(o)])
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if rc != 0:
            raise SystemExit(f"{mod.__file__} failed on {cid} (rc={rc})")
        outs[cid] = o
    return times, cpu, outs


def bench_lesion(mod, ds, out: Path) -> dict:
    times, cpu, outs = run_cases(mod, ds, out)
    organ, pos, fp = [], [], []
    for case in ds.load_manifest()["cases"]:
        cid = case["case_id"]
        organ.append(dice(arr(outs[cid] / "organ.nii.gz"), arr(ds.private / cid / "organ.nii.gz")))
        pl = arr(outs[cid] / "lesion.nii.gz")
        if case["lesion_positive"]:
            pos.append(dice(pl, arr(ds.private / cid / "lesion.nii.gz")))
        else:
            fp.append(int(pl.astype(bool).sum()))
    return {"times": times, "cpu": cpu, "organ": organ, "lesion": pos, "fp": fp}


def bench_tissue(mod, ds, out: Path) -> dict:
    times, cpu, outs = run_cases(mod, ds, out)
    macro = []
    for cid in ds.case_ids():
        p = arr(outs[cid] / "labels.nii.gz")
        r = arr(ds.private / cid / "labels.nii.gz")
        macro.append(float(np.mean([dice(p == k, r == k) for k in (1, 2, 3)])))
    return {"times": times, "cpu": cpu, "macro": macro}


def fmt_lesion(r: dict) -> str:
    fp = max(r["fp"]) if r["fp"] else 0
    return (f"{np.mean(r['times']):6.3f} s/case (cpu {np.mean(r['cpu']):.3f})  organ {np.mean(r['organ']):.4f} "
            f"(min {min(r['organ']):.4f})  lesion+ {np.mean(r['lesion']):.3f} "
            f"(min {min(r['lesion']):.3f}, n={len(r['lesion'])})  FP- max {fp} "
            f"(n={len(r['fp'])})")


def fmt_tissue(r: dict) -> str:
    return (f"{np.mean(r['times']):6.3f} s/case (cpu {np.mean(r['cpu']):.3f})  macro {np.mean(r['macro']):.4f} "
            f"(min {min(r['macro']):.4f})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--cases", type=int, default=6)
    ap.add_argument("--lesion", type=Path, default=METHODS / "brain_lesion_classical.py")
    ap.add_argument("--tissue", type=Path, default=METHODS / "brain_tissue_classical.py")
    ap.add_argument("--only", choices=("lesion", "tissue"))
    ap.add_argument("--keep", type=Path, help="build data and outputs here and keep them")
    a = ap.parse_args()
    root = a.keep or Path(tempfile.mkdtemp(prefix="demo_methods."))
    lesion_mod = load_module(a.lesion, "lesion_method")
    tissue_mod = load_module(a.tissue, "tissue_method")
    print(f"lesion script {a.lesion}\ntissue script {a.tissue}")
    allr = {"lesion": [], "tissue": []}
    try:
        for seed in a.seeds:
            sroot = root / f"seed{seed}"
            if a.only != "tissue":
                ds = stage("mni-brain-lesion", sroot / "data", n_cases=a.cases, seed=seed,
                           quiet=True)
                r = bench_lesion(lesion_mod, ds, sroot / "out-lesion")
                allr["lesion"].append(r)
                print(f"seed {seed} lesion {fmt_lesion(r)}", flush=True)
            if a.only != "lesion":
                ds = stage("mni-brain-tissue", sroot / "data", n_cases=a.cases, seed=seed,
                           quiet=True)
                r = bench_tissue(tissue_mod, ds, sroot / "out-tissue")
                allr["tissue"].append(r)
                print(f"seed {seed} tissue {fmt_tissue(r)}", flush=True)
        if allr["lesion"]:
            m = {k: sum((r[k] for r in allr["lesion"]), []) for k in allr["lesion"][0]}
            print(f"ALL    lesion {fmt_lesion(m)}")
        if allr["tissue"]:
            m = {k: sum((r[k] for r in allr["tissue"]), []) for k in allr["tissue"][0]}
            print(f"ALL    tissue {fmt_tissue(m)}")
    finally:
        if a.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
