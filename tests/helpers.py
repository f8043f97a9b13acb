"""Small builders shared by tests: tiny NIfTI datasets laid out like the real ones, and the
CLI run as a user runs it (a process of its own: tests/cli_forkserver.py)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

from automedbench.data import DatasetPaths, write_manifest
from tests.cli_forkserver import run_cli

# `python -m automedbench.cli` with the interpreter running the tests
CLI = [sys.executable, "-m", "automedbench.cli"]


def amb(*args, env=None, check=True, cwd=None):
    proc = run_cli(args, env={**os.environ, **(env or {})}, cwd=cwd, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:{proc.stdout}\nstderr:{proc.stderr}")
    return proc


def needs_calibration():
    """A pytest mark for tests that read the judge's calibration trajectories: skipped, saying
    where they were looked for, only when they are not there (an installed package without the
    repository's calibration/ folder); in a checkout they run."""
    import pytest

    from automedbench.scoring.judge_eval import calibration_missing
    why = calibration_missing()
    return pytest.mark.skipif(why is not None, reason=why or "")


def save_nii(path: Path, data: np.ndarray, affine=None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(data, np.eye(4) if affine is None else affine), str(path))
    return path


def tiny_lesion_dataset(root: Path, n_cases: int = 3, shape=(16, 14, 12), seed: int = 0) -> DatasetPaths:
    """organ = a box, lesion = a small cube inside it; case_000 is lesion-negative."""
    rng = np.random.default_rng(seed)
    paths = DatasetPaths(root)
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        organ = np.zeros(shape, np.uint8)
        organ[3:13, 3:11, 2:10] = 1
        lesion = np.zeros(shape, np.uint8)
        if i > 0:
            lesion[5:8, 5:8, 4:7] = 1
        image = (organ * 100 + lesion * 80 + rng.normal(0, 5, shape)).astype(np.float32)
        save_nii(paths.public / cid / "image.nii.gz", image)
        save_nii(paths.private / cid / "organ.nii.gz", organ)
        save_nii(paths.private / cid / "lesion.nii.gz", lesion)
        cases.append({"case_id": cid, "lesion_positive": bool(i > 0)})
    write_manifest(paths, dataset=root.name, description="tiny test dataset", cases=cases, provenance={"seed": seed})
    return paths


def write_prediction(workspace: Path, cid: str, organ: np.ndarray, lesion: np.ndarray) -> None:
    save_nii(workspace / "outputs" / cid / "organ.nii.gz", organ)
    save_nii(workspace / "outputs" / cid / "lesion.nii.gz", lesion)


def copy_reference(paths: DatasetPaths, workspace: Path, cid: str) -> None:
    for f in ("organ.nii.gz", "lesion.nii.gz"):
        dst = workspace / "outputs" / cid / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes((paths.private / cid / f).read_bytes())


def truncate(path: Path, keep: float = 0.5) -> None:
    raw = path.read_bytes()
    path.write_bytes(raw[: int(len(raw) * keep)])
