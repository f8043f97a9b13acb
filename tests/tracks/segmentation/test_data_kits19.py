"""KiTS19 stager on a tiny synthetic tree laid out like the official source."""
from __future__ import annotations

import nibabel as nib
import numpy as np
import pytest

from automedbench import datasets as registry
from automedbench.data import DatasetError, DatasetPaths, verify_manifest
from automedbench.tracks.segmentation.data import kits19

# KiTS19 volumes have odd affines (axes swapped, negative spacing); keep them as they are.
AFFINE = np.array([[0.0, 0.0, -0.8, 0.0], [0.0, -0.78, 0.0, 0.0],
                   [-0.78, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def _case(data, idx, *, tumour=True, seg=True, img=True, shape=(6, 8, 8), seg_shape=None,
          bad_seg=False, labels_extra=False):
    cdir = data / f"case_{idx:05d}"
    cdir.mkdir(parents=True)
    rng = np.random.default_rng(idx)
    if img:
        ct = rng.integers(-1000, 1500, shape).astype(np.int16)
        nib.save(nib.Nifti1Image(ct, AFFINE), str(cdir / "imaging.nii.gz"))
    if seg:
        s = np.zeros(seg_shape or shape, dtype=np.uint8)
        s[1:4, 2:6, 2:6] = 1
        if tumour:
            s[2:3, 3:5, 3:5] = 2
        if labels_extra:
            s[0, 0, 0] = 7
        if bad_seg:
            (cdir / "segmentation.nii.gz").write_bytes(b"not a nifti at all")
        else:
            nib.save(nib.Nifti1Image(s, AFFINE), str(cdir / "segmentation.nii.gz"))
    return cdir


@pytest.fixture()
def source(tmp_path):
    repo = tmp_path / "kits19"
    data = repo / "data"
    _case(data, 0)
    _case(data, 1, tumour=False)
    _case(data, 2, seg=False)                    # segmentation missing
    _case(data, 3, img=False)                    # imaging missing
    _case(data, 4, bad_seg=True)                 # unreadable
    _case(data, 5, seg_shape=(6, 8, 9))          # shape mismatch
    _case(data, 6, labels_extra=True)            # label outside {0,1,2}
    _case(data, 7)
    _case(data, 210, seg=False)                  # test-set case: no segmentation
    (data / "kits.json").write_text("[]")
    return repo


def test_stage_maps_labels_and_keeps_geometry(tmp_path, source):
    paths = DatasetPaths(tmp_path / "out" / "kits19")
    m = kits19.stage_kits19(paths, source, link=False)
    ids = [c["case_id"] for c in m["cases"]]
    assert ids == ["case_00000", "case_00001", "case_00007"]
    assert {c["case_id"]: c["lesion_positive"] for c in m["cases"]} == {
        "case_00000": True, "case_00001": False, "case_00007": True}
    for cid in ids:
        src = source / "data" / cid
        seg = np.asanyarray(nib.load(src / "segmentation.nii.gz").dataobj)
        organ = nib.load(paths.private / cid / "organ.nii.gz")
        lesion = nib.load(paths.private / cid / "lesion.nii.gz")
        assert organ.get_data_dtype() == np.uint8 and lesion.get_data_dtype() == np.uint8
        assert np.array_equal(np.asanyarray(organ.dataobj), np.isin(seg, (1, 2)).astype(np.uint8))
        assert np.array_equal(np.asanyarray(lesion.dataobj), (seg == 2).astype(np.uint8))
        assert np.allclose(organ.affine, AFFINE) and np.allclose(lesion.affine, AFFINE)
        # the image is the official file, byte for byte
        assert (paths.public / cid / "image.nii.gz").read_bytes() == \
            (src / "imaging.nii.gz").read_bytes()
        assert sorted(p.name for p in (paths.public / cid).iterdir()) == ["image.nii.gz"]
        assert sorted(p.name for p in (paths.private / cid).iterdir()) == \
            ["lesion.nii.gz", "organ.nii.gz"]
    assert verify_manifest(paths) == []
    skipped = {s["case_id"]: s["reason"] for s in m["provenance"]["skipped"]}
    assert set(skipped) == {"case_00002", "case_00003", "case_00004", "case_00005",
                            "case_00006", "case_00210"}
    assert "segmentation" in skipped["case_00002"]
    assert "imaging" in skipped["case_00003"]
    assert "unreadable" in skipped["case_00004"]
    assert "shape mismatch" in skipped["case_00005"]
    assert "labels" in skipped["case_00006"]
    assert "test-set" in skipped["case_00210"]
    assert m["provenance"]["labels"] == {"0": "background", "1": "kidney", "2": "tumour"}


def test_subset_limit_and_data_folder_as_source(tmp_path, source):
    m = kits19.stage_kits19(DatasetPaths(tmp_path / "a"), source / "data",
                            cases=["case_00007", 1, "0"], limit=2)
    assert [c["case_id"] for c in m["cases"]] == ["case_00000", "case_00001"]
    m = kits19.stage_kits19(DatasetPaths(tmp_path / "b"), source, cases=[2, 7])
    assert [c["case_id"] for c in m["cases"]] == ["case_00007"]
    assert [s["case_id"] for s in m["provenance"]["skipped"]] == ["case_00002"]


def test_hardlink_by_default(tmp_path, source):
    paths = DatasetPaths(tmp_path / "c")
    m = kits19.stage_kits19(paths, source, cases=[0])
    assert m["cases"][0]["image"] in {"hardlink", "copy"}
    if m["cases"][0]["image"] == "hardlink":
        assert (paths.public / "case_00000" / "image.nii.gz").stat().st_ino == \
            (source / "data" / "case_00000" / "imaging.nii.gz").stat().st_ino


def test_errors(tmp_path, source):
    with pytest.raises(DatasetError, match="does not exist"):
        kits19.stage_kits19(DatasetPaths(tmp_path / "d"), tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="no case_XXXXX"):
        kits19.stage_kits19(DatasetPaths(tmp_path / "e"), tmp_path / "empty")
    with pytest.raises(DatasetError, match="no source given"):
        kits19.stage_kits19(DatasetPaths(tmp_path / "f"))
    with pytest.raises(DatasetError, match="no usable case"):
        kits19.stage_kits19(DatasetPaths(tmp_path / "g"), source, cases=[2, 3, 4])
    with pytest.raises(DatasetError, match="not a case id"):
        kits19.stage_kits19(DatasetPaths(tmp_path / "h"), source, cases=["kidney"])


def test_download_urls_are_the_official_pattern():
    assert kits19.IMAGING_URL.format(cid=12) == \
        "https://kits19.sfo2.digitaloceanspaces.com/master_00012.nii.gz"
    assert kits19.SEGMENTATION_URL.format(cid=12).endswith(
        "neheller/kits19/master/data/case_00012/segmentation.nii.gz")


def test_registry_stages_kits19_atomically(tmp_path, source):
    root = tmp_path / "root"
    paths = registry.stage("kits19", root, quiet=True, source=source, cases=[0, 1])
    assert paths.root == root / "kits19" and paths.case_ids() == ["case_00000", "case_00001"]
    # a failing re-stage (bad source) leaves the staged dataset untouched, no temp dirs
    with pytest.raises(DatasetError):
        registry.stage("kits19", root, force=True, quiet=True, source=tmp_path / "nowhere")
    assert paths.case_ids() == ["case_00000", "case_00001"] and verify_manifest(paths) == []
    assert sorted(p.name for p in root.iterdir()) == ["kits19"]
