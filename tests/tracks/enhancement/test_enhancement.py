"""Enhancement track: demo builders, computed bands, format checks, scoring, methods, stagers."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from automedbench.data import DatasetError, DatasetPaths
from automedbench.scoring.task_score import aggregate_cases
from automedbench.tracks.base import CaseRecord, CaseStatus, ScoringContext, SubmittedCase
import automedbench.tracks.enhancement as enhancement_pkg
from automedbench.tracks.enhancement import TRACK, EnhancementOptions
from automedbench.tracks.enhancement.data.demo import build_ldct_demo, build_mri_sr_demo
from automedbench.tracks.enhancement.data.official import stage_fastmri_sr, stage_simnict

DENOISE = EnhancementOptions(variant="denoise")
SR = EnhancementOptions(variant="super_resolution", lpips=False)
CTX = ScoringContext()


@pytest.fixture(scope="module")
def sr_demo(tmp_path_factory) -> DatasetPaths:
    paths = DatasetPaths(tmp_path_factory.mktemp("sr") / "mri-sr-demo")
    build_mri_sr_demo(paths, n_cases=3, seed=0)
    return paths


@pytest.fixture(scope="module")
def ldct_demo(tmp_path_factory) -> DatasetPaths:
    paths = DatasetPaths(tmp_path_factory.mktemp("ldct") / "ldct-demo")
    build_ldct_demo(paths, n_cases=2, seed=0)
    return paths


def _score(paths: DatasetPaths, outputs: Path, options: EnhancementOptions):
    """What the core does: one record per expected case, then aggregate."""
    records = []
    for case in paths.load_manifest()["cases"]:
        cid = case["case_id"]
        ref, meta = TRACK.load_reference(paths.private / cid, case, options)
        if not (outputs / cid).is_dir():
            records.append(CaseRecord(cid, case, CaseStatus.MISSING))
            continue
        check = TRACK.check_case(SubmittedCase(cid, dir=outputs / cid), meta, options)
        if not check.valid:
            records.append(CaseRecord(cid, case, CaseStatus.INVALID, reason=check.reason))
            continue
        records.append(CaseRecord(cid, case, CaseStatus.OK, TRACK.score_case(check.prediction, ref, options, CTX)))
    return records, aggregate_cases(TRACK, records, options, CTX)


def _run_method(paths: DatasetPaths, outputs: Path) -> None:
    method = Path(enhancement_pkg.__file__).parent / "methods" / "enhance_classical.py"
    for cid in paths.case_ids():
        r = subprocess.run([sys.executable, str(method), str(paths.public / cid), str(outputs / cid)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr


# ---- demo data ---------------------------------------------------------------------------
def test_same_seed_gives_identical_files_and_another_seed_differs(sr_demo, tmp_path):
    again = DatasetPaths(tmp_path / "again")
    build_mri_sr_demo(again, n_cases=3, seed=0, bands=False)
    other = DatasetPaths(tmp_path / "other")
    build_mri_sr_demo(other, n_cases=3, seed=1, bands=False)
    files = lambda p: [c["files"] for c in p.load_manifest()["cases"]]  # noqa: E731
    assert files(again) == files(sr_demo)
    assert files(other) != files(sr_demo)


def test_sr_demo_layout_input_is_the_block_mean_of_the_reference(sr_demo):
    for case in sr_demo.load_manifest()["cases"]:
        cid = case["case_id"]
        low = np.load(sr_demo.public / cid / "input.npy")
        ref = np.load(sr_demo.private / cid / "reference.npy")
        info = json.loads((sr_demo.public / cid / "info.json").read_text())
        assert info["output_shape"] == list(ref.shape) == [2 * s for s in low.shape]
        np.testing.assert_allclose(low, ref.reshape(low.shape[0], 2, low.shape[1], 2).mean(axis=(1, 3)), rtol=1e-5)
        assert not list(sr_demo.public.glob("*/reference.npy"))


def test_ldct_demo_input_is_noisier_than_reference_in_hu(ldct_demo):
    for cid in ldct_demo.case_ids():
        low = np.load(ldct_demo.public / cid / "input.npy").astype(float)
        ref = np.load(ldct_demo.private / cid / "reference.npy").astype(float)
        assert low.shape == ref.shape and -1300 < ref.min() < -500 and ref.max() > 200   # HU, air to bone
        assert np.std(low - ref) > 20   # simulated quantum noise, tens of HU


# ---- computed bands ----------------------------------------------------------------------
def test_bands_are_computed_from_the_baselines(sr_demo):
    bands = json.loads((sr_demo.root / "baselines.json").read_text())
    assert set(bands["baselines"]) == {"nearest", "bicubic"}
    top = max(v["ssim"] for v in bands["baselines"].values())
    assert bands["top"]["ssim"] == top
    mb = bands["medal_bands"]
    # the B and C edges, each raised above the trivial baseline (nearest neighbour) where it lies
    # at or above them (docs/scoring.md "Enhancement bands")
    trivial = bands["baselines"]["nearest"]["ssim"]
    okay = max(top - 0.05, trivial + 0.01)
    assert mb["okay"] == pytest.approx(okay, abs=1e-6) and mb["good"] == pytest.approx(max(top - 0.02, okay), abs=1e-6)
    assert mb["okay"] > trivial and "nearest" in mb["source"]
    assert bands["edges"]["A"]["ssim"] == pytest.approx(top + 0.02)
    assert TRACK.dataset_bands(sr_demo.root).good == mb["good"]
    # bands.json holds exactly the MedalBands fields, which the core's resolver reads
    assert json.loads((sr_demo.root / "bands.json").read_text()) == mb


def test_ldct_bands_rank_the_denoisers_above_identity(ldct_demo):
    b = json.loads((ldct_demo.root / "baselines.json").read_text())["baselines"]
    assert b["nl_means"]["ssim"] > b["identity"]["ssim"] and b["gaussian_sigma1"]["ssim"] > b["identity"]["ssim"]


@pytest.mark.slow
def test_baselines_command_writes_bands_and_refuses_a_non_dataset(sr_demo, tmp_path):
    env = {**os.environ, "COLUMNS": "200"}
    cmd = [sys.executable, "-m", "automedbench.tracks.enhancement.baselines"]
    (sr_demo.root / "bands.json").unlink()
    r = subprocess.run([*cmd, str(sr_demo.root)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "bicubic" in r.stdout and (sr_demo.root / "bands.json").is_file()
    r = subprocess.run([*cmd, str(tmp_path)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "no manifest.json" in r.stdout


# ---- scoring -----------------------------------------------------------------------------
def test_gold_submission_scores_one(sr_demo, tmp_path):
    TRACK.gold_submission(sr_demo.root, tmp_path, SR)
    records, agg = _score(sr_demo, tmp_path, SR)
    assert agg.score == 1.0 and all(r.score.metrics["psnr"] == 100.0 for r in records)
    assert agg.metrics["lpips_valid_mean"] is None and "lpips" in agg.notes


@pytest.mark.slow
def test_reference_method_earns_a_good_medal_on_both_demos(sr_demo, ldct_demo, tmp_path):
    for paths, opts in ((sr_demo, SR), (ldct_demo, DENOISE)):
        out = tmp_path / paths.root.name
        _run_method(paths, out)
        records, agg = _score(paths, out, opts)
        bands = TRACK.dataset_bands(paths.root)
        assert all(r.status == CaseStatus.OK for r in records)
        assert agg.score >= bands.good, (paths.root.name, agg.score, bands)


def test_missing_cases_count_zero_and_reference_errors_are_left_out(sr_demo, tmp_path):
    TRACK.gold_submission(sr_demo.root, tmp_path, SR)
    ids = sr_demo.case_ids()
    import shutil
    shutil.rmtree(tmp_path / ids[0])
    records, agg = _score(sr_demo, tmp_path, SR)
    assert agg.score == pytest.approx(2 / 3) and agg.metrics["completion"] == pytest.approx(2 / 3)
    records[1] = CaseRecord(ids[1], {}, CaseStatus.REFERENCE_ERROR, reason="unreadable")
    agg = aggregate_cases(TRACK, records, SR, CTX)
    assert agg.score == pytest.approx(1 / 2)


@pytest.fixture()
def one_case(sr_demo, tmp_path):
    cid = sr_demo.case_ids()[0]
    _, meta = TRACK.load_reference(sr_demo.private / cid, {}, SR)
    out = tmp_path / cid
    out.mkdir()
    return out, meta


def _check(out, meta):
    return TRACK.check_case(SubmittedCase(out.name, dir=out), meta, SR)


def _npy_header(shape) -> bytes:
    """A valid .npy header promising `shape` float32, with no data behind it."""
    import io
    from numpy.lib import format as npformat
    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": shape})
    return buf.getvalue()


@pytest.mark.parametrize("write, reason", [
    (lambda f, s: np.save(f, np.zeros((s[0], s[1] + 2), np.float32)), "wrong shape"),
    (lambda f, s: np.save(f, np.full(s, np.nan, np.float32)), "NaN"),
    (lambda f, s: np.save(f, np.zeros(s, np.int16)), "not floating point"),
    (lambda f, s: np.save(f, np.array([{"a": 1}], dtype=object)), "not floating point"),   # never unpickled
    (lambda f, s: f.write_bytes(os.urandom(300)), "not a .npy"),
    (lambda f, s: f.write_bytes(b"\x93NUMPY garbage"), "unreadable"),
    (lambda f, s: np.save(f, np.zeros((s[0] * 4, s[1] * 4), np.float64)), "more than any float array"),
    (lambda f, s: None, "missing"),
    (lambda f, s: f.write_bytes(_npy_header((100000, 100000))), "wrong shape (100000, 100000)"),
])
def test_bad_outputs_fail_that_case_with_a_reason(one_case, write, reason):
    out, meta = one_case
    write(out / "enhanced.npy", meta["shape"])
    check = _check(out, meta)
    assert not check.valid and reason in check.reason and "\n" not in check.reason


def test_symlink_to_the_reference_is_refused(one_case, sr_demo):
    out, meta = one_case
    os.symlink(sr_demo.private / out.name / "reference.npy", out / "enhanced.npy")
    check = _check(out, meta)
    assert not check.valid and "symlink" in check.reason


def test_constant_image_is_valid_but_trivial(one_case):
    out, meta = one_case
    np.save(out / "enhanced.npy", np.zeros(meta["shape"], np.float32))
    check = _check(out, meta)
    assert check.valid and not check.non_trivial


def test_unreadable_reference_raises_for_the_core_to_record(tmp_path):
    (tmp_path / "reference.npy").write_bytes(b"junk")
    with pytest.raises(ValueError):
        TRACK.load_reference(tmp_path, {}, SR)


@pytest.mark.slow
def test_careless_bug_ruins_exactly_every_other_case(sr_demo, tmp_path):
    methods = TRACK.scripted_methods(SR)
    ws = tmp_path / "ws"
    ws.mkdir()
    for code in (methods.setup_code(str(sr_demo.public)), methods.batch_code(str(sr_demo.public), careless=True)):
        r = subprocess.run([sys.executable, "-c", code], cwd=ws, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    records, agg = _score(sr_demo, ws / "outputs", SR)
    ssims = [r.score.metrics["ssim"] for r in records]
    # MR intensities are already near [0, 1], so the damage is milder than on CT (HU), still obvious
    assert max(ssims[0], ssims[2]) < 0.6 < 0.9 < ssims[1]


def test_submission_contract_names_the_file_and_shape():
    text = TRACK.submission(SR).contract("/workspace")
    assert "enhanced.npy" in text and "output_shape" in text and "finite" in text


# ---- official stagers (offline, against local trees laid out like the sources) ----------------
def test_simnict_stager_pairs_volumes_and_skips_bad_ones(tmp_path):
    rng = np.random.default_rng(0)
    src = tmp_path / "simnict"
    for name in ("p1", "p2"):
        full = rng.normal(0, 300, (32, 32, 6)).astype(np.float32)
        for sub, vol in (("full_dose", full), ("low_dose", full + rng.normal(0, 50, full.shape))):
            (src / sub).mkdir(parents=True, exist_ok=True)
            nib.save(nib.Nifti1Image(vol.astype(np.float32), np.eye(4)), str(src / sub / f"{name}.nii.gz"))
    (src / "low_dose" / "p3.nii.gz").write_bytes(b"not a nifti")     # corrupt, and unpaired
    (src / "full_dose" / "p3.nii.gz").write_bytes(b"not a nifti")
    paths = DatasetPaths(tmp_path / "staged")
    manifest = stage_simnict(paths, source=src, slices_per_volume=2)
    assert len(manifest["cases"]) == 4 and "p3.nii.gz" in manifest["provenance"]["skipped"]
    assert json.loads((paths.root / "baselines.json").read_text())["variant"] == "denoise"
    cid = manifest["cases"][0]["case_id"]
    assert np.load(paths.public / cid / "input.npy").shape == (32, 32)
    with pytest.raises(DatasetError, match="not redistributed"):
        stage_simnict(DatasetPaths(tmp_path / "x"), source=None)
    with pytest.raises(DatasetError, match="expected volumes"):
        stage_simnict(DatasetPaths(tmp_path / "y"), source=tmp_path / "nowhere")


def test_fastmri_stager_reads_reconstructions_from_h5(tmp_path):
    h5py = pytest.importorskip("h5py")
    src = tmp_path / "knee"
    src.mkdir()
    rng = np.random.default_rng(1)
    with h5py.File(src / "file1000001.h5", "w") as h:
        h["reconstruction_rss"] = rng.random((10, 40, 36)).astype(np.float32) * 1e-4
        h["kspace"] = np.zeros((10, 2, 2), np.complex64)
    with h5py.File(src / "file1000002.h5", "w") as h:
        h["kspace"] = np.zeros((3, 2, 2), np.complex64)                # no reconstruction
    paths = DatasetPaths(tmp_path / "fastmri-sr")
    manifest = stage_fastmri_sr(paths, source=src, slices_per_volume=3)
    assert len(manifest["cases"]) == 3 and "file1000002.h5" in manifest["provenance"]["skipped"]
    cid = manifest["cases"][0]["case_id"]
    assert np.load(paths.public / cid / "input.npy").shape == (20, 18)
    assert np.load(paths.private / cid / "reference.npy").shape == (40, 36)
    assert json.loads((paths.root / "baselines.json").read_text())["variant"] == "super_resolution"
