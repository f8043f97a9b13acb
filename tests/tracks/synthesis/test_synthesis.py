"""Synthesis track: z-SR demo, grid checks, 3-D SSIM with the baseline gate, methods, stagers."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from automedbench.data import DatasetError, DatasetPaths
from automedbench.scoring.task_score import aggregate_cases
from automedbench.tracks.base import CaseRecord, CaseScore, CaseStatus, ScoringContext, SubmittedCase
import automedbench.tracks.synthesis as synthesis_pkg
from automedbench.tracks.synthesis import TRACK, SynthesisOptions
from automedbench.tracks.synthesis import zsr
from automedbench.tracks.synthesis.data import demo as demo_builder
from automedbench.tracks.synthesis.data.demo import build_ct_brain_zsr
from automedbench.tracks.synthesis.data.official import stage_ct_zsr, stage_synthrad2025
from automedbench.tracks.synthesis.mha import MetaImageError, read_mha, write_mha

ZSR = SynthesisOptions(variant="ct_zsr")
CTX = ScoringContext()
METHOD = Path(synthesis_pkg.__file__).parent / "methods" / "zsr_classical.py"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> DatasetPaths:
    paths = DatasetPaths(tmp_path_factory.mktemp("zsr") / "ct-brain-zsr-demo")
    build_ct_brain_zsr(paths, n_cases=2, seed=0)
    return paths


def _score(paths: DatasetPaths, outputs: Path, options: SynthesisOptions = ZSR):
    records = []
    for case in paths.load_manifest()["cases"]:
        cid = case["case_id"]
        ref, meta = TRACK.load_reference(paths.private / cid, case, options)
        check = TRACK.check_case(SubmittedCase(cid, dir=outputs / cid), meta, options)
        if not check.valid:
            records.append(CaseRecord(cid, case, CaseStatus.INVALID, reason=check.reason))
            continue
        records.append(CaseRecord(cid, case, CaseStatus.OK, TRACK.score_case(check.prediction, ref, options, CTX)))
    return records, aggregate_cases(TRACK, records, options, CTX)


def test_demo_is_reproducible_and_its_grid_is_consistent(demo, tmp_path):
    again = DatasetPaths(tmp_path / "again")
    build_ct_brain_zsr(again, n_cases=2, seed=0)
    assert [c["files"] for c in again.load_manifest()["cases"]] == [c["files"] for c in demo.load_manifest()["cases"]]
    for case in demo.load_manifest()["cases"]:
        cid = case["case_id"]
        low = nib.load(str(demo.public / cid / "lowres.nii.gz"))
        ref = nib.load(str(demo.private / cid / "reference.nii.gz"))
        grid = json.loads((demo.public / cid / "target_grid.json").read_text())
        assert grid["shape"] == list(ref.shape) and low.shape[2] * 4 == ref.shape[2]
        np.testing.assert_allclose(grid["affine"], ref.affine, atol=1e-5)
        # the thick slice k is centred on thin slice 4k + 1.5: same world position in both grids
        np.testing.assert_allclose(low.affine @ [0, 0, 1, 1], ref.affine @ [0, 0, 5.5, 1], atol=1e-5)
        np.testing.assert_allclose(np.asarray(low.dataobj), zsr.slab_average(np.asarray(ref.dataobj, float), 4), rtol=1e-5)
        assert 0.9 < case["baseline_ssim"] < 1.0


@pytest.mark.slow
def test_gold_scores_one_and_reference_method_beats_the_interpolation_baseline(demo, tmp_path):
    TRACK.gold_submission(demo.root, tmp_path / "gold", ZSR)
    assert _score(demo, tmp_path / "gold")[1].score == 1.0
    for cid in demo.case_ids():
        r = subprocess.run([sys.executable, str(METHOD), str(demo.public / cid), str(tmp_path / "ref" / cid)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    records, agg = _score(demo, tmp_path / "ref")
    assert all(r.status == CaseStatus.OK for r in records)
    # the interpolation baseline sits just below Good on this CT; the reference method clears it
    assert agg.score > agg.metrics["baseline_ssim"] + 0.002
    assert agg.metrics["baseline_ssim"] < TRACK.default_bands(ZSR).good
    assert agg.metrics["ssim_medal"] == agg.score >= TRACK.default_bands(ZSR).good


def test_demo_volume_is_real_ct_read_from_the_wheel_and_checked(demo):
    m = demo.load_manifest()
    assert "CT" in m["provenance"]["real"] and demo_builder.ATLAS_SHA256[:16] in m["provenance"]["real"]
    starts = [c["source"].split(" z")[1] for c in m["cases"]]
    assert len(set(starts)) == len(starts)                         # no two cases on the same slab
    ref = np.asarray(nib.load(str(demo.private / "case_000" / "reference.nii.gz")).dataobj)
    brain = ref[ref != 0]
    assert 20 < np.median(brain) < 60 and ref.max() > 100          # HU: brain tissue, calcification


def test_missing_or_altered_atlas_stops_with_the_install_command(monkeypatch, tmp_path):
    def absent(name):
        raise demo_builder.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(demo_builder.metadata, "distribution", absent)
    with pytest.raises(DatasetError, match="pip install --no-deps totalsegmentator==2.18.0"):
        demo_builder.atlas_path()
    monkeypatch.undo()
    monkeypatch.setattr(demo_builder, "ATLAS_SHA256", "0" * 64)
    with pytest.raises(DatasetError, match="not the expected file"):
        demo_builder.atlas_path()


def test_below_the_baseline_is_a_fail_for_the_medal():
    recs = [CaseRecord(f"c{i}", {"baseline_ssim": 0.96}, CaseStatus.OK, CaseScore({"ssim": 0.955, "psnr": 30.0, "mae": 1.0}))
            for i in range(2)]
    agg = aggregate_cases(TRACK, recs, ZSR, CTX)
    assert agg.score == pytest.approx(0.955) and agg.metrics["ssim_medal"] == 0.0 and "fail" in agg.notes["baseline"]


@pytest.fixture()
def case(demo, tmp_path):
    cid = demo.case_ids()[0]
    ref, meta = TRACK.load_reference(demo.private / cid, {}, ZSR)
    out = tmp_path / cid
    out.mkdir()
    return out, meta, ref


def _check(out, meta, options=ZSR):
    return TRACK.check_case(SubmittedCase(out.name, dir=out), meta, options)


def test_input_grid_wrong_shape_nan_and_garbage_fail_with_reasons(case, demo):
    out, meta, ref = case
    f = out / "sct.nii.gz"
    low = nib.load(str(demo.public / out.name / "lowres.nii.gz"))
    nib.save(nib.Nifti1Image(ref.astype(np.float32), low.affine), str(f))
    assert "affine differs" in _check(out, meta).reason
    nib.save(nib.Nifti1Image(np.zeros(low.shape, np.float32), meta["affine"]), str(f))
    assert "wrong shape" in _check(out, meta).reason
    bad = ref.astype(np.float32)
    bad[0, 0, 0] = np.nan
    nib.save(nib.Nifti1Image(bad, meta["affine"]), str(f))
    assert "NaN" in _check(out, meta).reason
    f.write_bytes(os.urandom(2000))
    assert not _check(out, meta).valid
    f.write_bytes(gzip.compress(os.urandom(2000)))
    assert not _check(out, meta).valid
    f.unlink()
    assert "missing" in _check(out, meta).reason


def test_trailing_singleton_axis_is_tolerated_and_symlinks_refused(case, demo):
    out, meta, ref = case
    nib.save(nib.Nifti1Image(ref.astype(np.float32)[..., None], meta["affine"]), str(out / "sct.nii.gz"))
    assert _check(out, meta).valid
    (out / "sct.nii.gz").unlink()
    os.symlink(demo.private / out.name / "reference.nii.gz", out / "sct.nii.gz")
    assert "symlink" in _check(out, meta).reason


def test_a_header_promising_a_huge_volume_is_refused_before_decompression(case):
    out, meta, _ = case
    hdr = nib.Nifti1Header()
    hdr.set_data_shape((2000, 2000, 2000))
    hdr.set_data_dtype(np.float32)
    (out / "sct.nii.gz").write_bytes(gzip.compress(hdr.binaryblock + b"\0" * 4 + b"\0" * 1000))
    check = _check(out, meta)
    assert not check.valid and "wrong shape (2000, 2000, 2000)" in check.reason


@pytest.mark.slow
def test_careless_input_header_bug_fails_exactly_every_other_case(demo, tmp_path):
    methods = TRACK.scripted_methods(ZSR)
    ws = tmp_path / "ws"
    ws.mkdir()
    for code in (methods.setup_code(str(demo.public)), methods.batch_code(str(demo.public), careless=True)):
        r = subprocess.run([sys.executable, "-c", code], cwd=ws, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    records, agg = _score(demo, ws / "outputs")
    assert records[0].status == CaseStatus.INVALID and "affine" in records[0].reason
    assert records[1].status == CaseStatus.OK
    assert TRACK.scripted_methods(SynthesisOptions(variant="mri_to_ct")) is None


def test_hu_clip_is_applied_to_reference_and_prediction(tmp_path):
    opts = SynthesisOptions(variant="mri_to_ct", hu_clip=(-1024, 3000))
    vol = np.full((12, 12, 12), -3000.0, np.float32)
    vol[3:9, 3:9, 3:9] = 5000
    vol[5, 5, 5] = 0
    nib.save(nib.Nifti1Image(vol, np.eye(4)), str(tmp_path / "reference.nii.gz"))
    ref, _ = TRACK.load_reference(tmp_path, {}, opts)
    assert ref.min() == -1024 and ref.max() == 3000


# ---- MetaImage + official stagers ----------------------------------------------------------
@pytest.mark.parametrize("compressed", [True, False])
def test_mha_round_trip(tmp_path, compressed):
    vol = np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6)
    write_mha(tmp_path / "a.mha", vol, spacing=(1.0, 2.0, 3.0), offset=(10.0, 20.0, 30.0), compressed=compressed)
    arr, aff = read_mha(tmp_path / "a.mha")
    assert np.array_equal(arr, vol)
    np.testing.assert_allclose(aff, [[-1, 0, 0, -10], [0, -2, 0, -20], [0, 0, 3, 30], [0, 0, 0, 1]])
    (tmp_path / "b.mha").write_bytes((tmp_path / "a.mha").read_bytes()[:-20])
    with pytest.raises(MetaImageError):
        read_mha(tmp_path / "b.mha")


@pytest.mark.parametrize("dataset, layout", [
    ("ctorg-zsr", "OrganSegmentations/volume-{i}.nii.gz"),
    ("msd-pancreas-zsr", "Task07_Pancreas/imagesTr/pancreas_00{i}.nii.gz"),
    ("totalseg-zsr", "s000{i}/ct.nii.gz"),
])
def test_ct_zsr_stagers_read_the_official_layouts(tmp_path, dataset, layout):
    rng = np.random.default_rng(0)
    src = tmp_path / "src"
    for i in range(2):
        f = src / layout.format(i=i)
        f.parent.mkdir(parents=True, exist_ok=True)
        vol = np.clip(rng.normal(0, 400, (24, 24, 18)), -1024, 2000).astype(np.int16)
        nib.save(nib.Nifti1Image(vol, np.diag([0.8, 0.8, 1.25, 1])), str(f))
    bad = src / layout.format(i=9)
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_bytes(b"corrupt")
    paths = DatasetPaths(tmp_path / dataset)
    manifest = stage_ct_zsr(paths, dataset, source=src)
    assert len(manifest["cases"]) == 2 and len(manifest["provenance"]["skipped"]) == 1
    c = manifest["cases"][0]
    assert c["shape"] == [24, 24, 16] and 0 < c["baseline_ssim"] < 1
    assert nib.load(str(paths.public / c["case_id"] / "lowres.nii.gz")).shape == (24, 24, 4)
    with pytest.raises(DatasetError, match="not redistributed"):
        stage_ct_zsr(DatasetPaths(tmp_path / "none"), dataset, source=tmp_path / "empty")


def test_synthrad_stager_converts_mha_pairs_and_records_the_bulk_baseline(tmp_path):
    rng = np.random.default_rng(0)
    for region, pid in (("AB", "1ABA001"), ("HN", "1HNA002")):
        d = tmp_path / "Task1" / region / pid
        d.mkdir(parents=True)
        mask = np.zeros((16, 16, 10), np.uint8)
        mask[3:13, 3:13, 2:8] = 1
        ct = np.where(mask, rng.normal(40, 200, mask.shape), -1000).astype(np.int16)
        write_mha(d / "ct.mha", ct)
        write_mha(d / "mr.mha", (mask * rng.random(mask.shape) * 500).astype(np.float32))
        write_mha(d / "mask.mha", mask)
    shutil.copy(tmp_path / "Task1/AB/1ABA001/ct.mha", tmp_path / "Task1/HN/1HNA002/mr.mha")
    (tmp_path / "Task1/HN/1HNA002/mr.mha").write_bytes(b"ObjectType = Image\nDimSize = 4 4\n")  # broken
    paths = DatasetPaths(tmp_path / "synthrad2025")
    manifest = stage_synthrad2025(paths, source=tmp_path)
    assert [c["case_id"] for c in manifest["cases"]] == ["1ABA001"] and "1HNA002" in manifest["provenance"]["skipped"]
    assert {p.name for p in (paths.public / "1ABA001").iterdir()} == {"mr.nii.gz", "mask.nii.gz", "target_grid.json"}
    assert 0 < manifest["cases"][0]["baseline_ssim"] < 1
