"""The classical reference methods, run as the sandboxed reference agent would run them
(standalone scripts, subprocess), meet their honest-baseline floors on the demo data."""
from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

import automedbench.tracks.segmentation.methods as methods_pkg

METHODS = Path(methods_pkg.__file__).parent
pytestmark = pytest.mark.slow


def dice(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(bool), b.astype(bool)
    s = a.sum() + b.sum()
    return 1.0 if s == 0 else 2.0 * float((a & b).sum()) / float(s)


def _load(p: Path) -> nib.Nifti1Image:
    return nib.load(str(p))


def _run_all(script: str, ds, out: Path) -> dict[str, Path]:
    ids = ds.case_ids()

    def one(cid: str) -> subprocess.CompletedProcess:
        # an empty environment apart from PATH: the script must not need automedbench
        return subprocess.run([sys.executable, str(METHODS / script),
                               str(ds.public / cid / "image.nii.gz"), str(out / cid)],
                              capture_output=True, text=True, timeout=300,
                              env={"PATH": "/usr/bin:/bin"}, cwd=out)

    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(ids, pool.map(one, ids)))
    for cid, r in results.items():
        assert r.returncode == 0, f"{script} failed on {cid}:\n{r.stderr[-2000:]}"
        assert r.stdout.strip().count("\n") == 0          # one-line summary
    return {cid: out / cid for cid in ids}


def test_methods_are_standalone():
    for script in ("brain_lesion_classical.py", "brain_tissue_classical.py"):
        text = (METHODS / script).read_text()
        assert "automedbench" not in text.split('"""', 2)[2]  # no import of the harness


def test_brain_lesion_classical_floors(lesion_ds, tmp_path):
    outs = _run_all("brain_lesion_classical.py", lesion_ds, tmp_path)
    organ_d, lesion_pos, fp_neg = [], [], []
    for case in lesion_ds.load_manifest()["cases"]:
        cid = case["case_id"]
        img = _load(lesion_ds.public / cid / "image.nii.gz")
        pred_o, pred_l = _load(outs[cid] / "organ.nii.gz"), _load(outs[cid] / "lesion.nii.gz")
        for p in (pred_o, pred_l):
            assert p.shape == img.shape and np.allclose(p.affine, img.affine)
            assert p.get_data_dtype() == np.uint8
            assert set(np.unique(np.asanyarray(p.dataobj))) <= {0, 1}
        ref_o = np.asanyarray(_load(lesion_ds.private / cid / "organ.nii.gz").dataobj)
        ref_l = np.asanyarray(_load(lesion_ds.private / cid / "lesion.nii.gz").dataobj)
        organ_d.append(dice(np.asanyarray(pred_o.dataobj), ref_o))
        pl = np.asanyarray(pred_l.dataobj)
        if case["lesion_positive"]:
            lesion_pos.append(dice(pl, ref_l))
        else:
            fp_neg.append(int(pl.sum()))
    print(f"organ Dice {np.round(organ_d, 3)}; lesion Dice (positive) {np.round(lesion_pos, 3)}; "
          f"FP voxels on negatives {fp_neg}")
    assert min(organ_d) >= 0.9
    assert np.mean(lesion_pos) >= 0.4
    assert all(fp <= 50 for fp in fp_neg)


def test_brain_tissue_classical_floors(tissue_ds, tmp_path):
    outs = _run_all("brain_tissue_classical.py", tissue_ds, tmp_path)
    macro = []
    for cid in tissue_ds.case_ids():
        img = _load(tissue_ds.public / cid / "image.nii.gz")
        pred = _load(outs[cid] / "labels.nii.gz")
        assert pred.shape == img.shape and np.allclose(pred.affine, img.affine)
        p = np.asanyarray(pred.dataobj)
        r = np.asanyarray(_load(tissue_ds.private / cid / "labels.nii.gz").dataobj)
        assert set(np.unique(p)) <= {0, 1, 2, 3}
        macro.append(np.mean([dice(p == k, r == k) for k in (1, 2, 3)]))
    print(f"tissue macro Dice {np.round(macro, 3)}")
    assert np.mean(macro) >= 0.6 and min(macro) >= 0.5
