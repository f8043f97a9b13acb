"""Embedded MNI152 demo datasets: layout, content, reproducibility."""
from __future__ import annotations

import gzip
import json
import struct

import nibabel as nib
import numpy as np
import pytest

from automedbench.data import DatasetPaths, verify_manifest
from automedbench.tracks.segmentation.data.demo_brain import build_mni_brain_lesion, build_mni_brain_tissue


def _files(paths: DatasetPaths, side: str) -> dict[str, set[str]]:
    root = getattr(paths, side)
    return {d.name: {f.name for f in d.iterdir()} for d in sorted(root.iterdir())}


def test_lesion_layout_public_inputs_private_references(lesion_ds):
    m = lesion_ds.load_manifest()
    ids = [c["case_id"] for c in m["cases"]]
    assert ids == [f"case_{i:03d}" for i in range(6)]
    assert _files(lesion_ds, "public") == {cid: {"image.nii.gz"} for cid in ids}
    assert _files(lesion_ds, "private") == {cid: {"organ.nii.gz", "lesion.nii.gz"} for cid in ids}
    public_names = {f.name for f in lesion_ds.public.rglob("*") if f.is_file()}
    assert not public_names & {"organ.nii.gz", "lesion.nii.gz", "labels.nii.gz"}
    assert verify_manifest(lesion_ds) == []
    for c in m["cases"]:
        assert set(c["files"]) == {f"public/{c['case_id']}/image.nii.gz",
                                   f"private/{c['case_id']}/organ.nii.gz",
                                   f"private/{c['case_id']}/lesion.nii.gz"}


def test_lesion_content(lesion_ds):
    m = lesion_ds.load_manifest()
    assert "simulated" in m["description"] and "MNI152" in m["description"]
    positives = [c["lesion_positive"] for c in m["cases"]]
    assert 0 < positives.count(False) < len(positives)      # negatives present, not all
    for c in m["cases"]:
        cid = c["case_id"]
        img = nib.load(lesion_ds.public / cid / "image.nii.gz")
        organ = nib.load(lesion_ds.private / cid / "organ.nii.gz")
        lesion = nib.load(lesion_ds.private / cid / "lesion.nii.gz")
        assert img.shape == organ.shape == lesion.shape == (99, 117, 95)
        assert np.allclose(img.affine, organ.affine) and np.allclose(img.affine, lesion.affine)
        assert np.allclose(np.diag(img.affine)[:3], 2.0)
        assert organ.get_data_dtype() == np.uint8 and lesion.get_data_dtype() == np.uint8
        o = np.asanyarray(organ.dataobj)
        les = np.asanyarray(lesion.dataobj)
        assert set(np.unique(o)) == {0, 1} and set(np.unique(les)) <= {0, 1}
        assert 150_000 < o.sum() < 350_000                   # ~1.0-1.4 l at 8 mm^3/voxel
        assert bool(les.any()) == c["lesion_positive"]
        assert not (les.astype(bool) & ~o.astype(bool)).any()  # lesions inside the brain
        if c["lesion_positive"]:
            assert 1 <= c["n_lesions"] <= 3
        data = np.asanyarray(img.dataobj)
        assert np.isfinite(data).all() and data.max() > 0
        # the brain is brighter than the (Rician-noise) background
        assert data[o > 0].mean() > 5 * data[o == 0].mean()


def test_tissue_layout_and_labels(tissue_ds):
    m = tissue_ds.load_manifest()
    assert m["provenance"]["labels"] == {"1": "csf", "2": "grey_matter", "3": "white_matter"}
    ids = [c["case_id"] for c in m["cases"]]
    assert len(ids) == 6
    assert _files(tissue_ds, "public") == {cid: {"image.nii.gz"} for cid in ids}
    assert _files(tissue_ds, "private") == {cid: {"labels.nii.gz"} for cid in ids}
    assert verify_manifest(tissue_ds) == []
    for cid in ids:
        img = nib.load(tissue_ds.public / cid / "image.nii.gz")
        lab = nib.load(tissue_ds.private / cid / "labels.nii.gz")
        assert img.shape == lab.shape and lab.get_data_dtype() == np.uint8
        values, counts = np.unique(np.asanyarray(lab.dataobj), return_counts=True)
        assert values.tolist() == [0, 1, 2, 3]
        c = dict(zip(values.tolist(), counts.tolist()))
        assert c[2] > c[3] > c[1] > 5_000                   # GM > WM > CSF in this template
        data = np.asanyarray(img.dataobj).astype(float)
        lab_d = np.asanyarray(lab.dataobj)
        means = [data[lab_d == k].mean() for k in (1, 2, 3)]
        assert means[0] < means[1] < means[2]               # T1 contrast: CSF < GM < WM


def _sha(paths: DatasetPaths) -> dict[str, str]:
    return {k: v for c in paths.load_manifest()["cases"] for k, v in c["files"].items()}


@pytest.mark.slow
@pytest.mark.parametrize("builder", [build_mni_brain_lesion, build_mni_brain_tissue])
def test_reproducible_same_seed_identical_bytes(tmp_path, builder):
    a = DatasetPaths(tmp_path / "a")
    b = DatasetPaths(tmp_path / "b")
    c = DatasetPaths(tmp_path / "c")
    builder(a, n_cases=2, seed=3)
    builder(b, n_cases=2, seed=3)
    builder(c, n_cases=2, seed=4)
    assert _sha(a) == _sha(b)
    assert all(_sha(a)[k] != _sha(c)[k] for k in _sha(a) if k.startswith("public/"))
    ma, mb = json.loads(a.manifest.read_text()), json.loads(b.manifest.read_text())
    assert ma == mb


def test_gzip_header_has_no_time_or_name(lesion_ds):
    raw = (lesion_ds.public / "case_000" / "image.nii.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    flags, mtime = raw[3], struct.unpack("<I", raw[4:8])[0]
    assert mtime == 0 and not flags & 0x08                 # no timestamp, no file name
    hdr = nib.Nifti1Header.from_fileobj(gzip.open(lesion_ds.public / "case_000" / "image.nii.gz"))
    assert int(hdr["sform_code"]) == 4 and int(hdr["qform_code"]) == 4


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        build_mni_brain_lesion(DatasetPaths(tmp_path / "x"), n_cases=0)
    with pytest.raises(ValueError):
        build_mni_brain_tissue(DatasetPaths(tmp_path / "y"), seed=-1)


def test_source_anatomy_loads_without_network(monkeypatch):
    """The MNI152 files ship inside nilearn: loading them must not touch the network."""
    import socket

    from automedbench.tracks.segmentation.data import demo_brain

    def no_network(*args, **kwargs):
        raise AssertionError("network access attempted while loading the MNI152 template")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    demo_brain._mni.cache_clear()
    src = demo_brain._mni()
    assert src["t1"].shape == src["brain"].shape == src["gm"].shape == (99, 117, 95)
    assert 0.0 <= src["gm"].min() and src["wm"].max() <= 1.0
    # CSF is the remainder of GM + WM inside the brain: the three sum to the brain mask
    assert np.allclose(src["csf"] + src["gm"] + src["wm"], src["brain"], atol=1e-4)
