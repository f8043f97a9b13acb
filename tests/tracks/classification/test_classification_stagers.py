"""Official classification stagers, offline, against small trees laid out like each release."""
import json

import numpy as np
import pytest
from PIL import Image

from automedbench.data import DatasetError, DatasetPaths, verify_manifest
from automedbench.tracks.classification.data import official


def _img(path, value, size=(16, 12), mode="RGB"):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new(mode, size, value if mode == "L" else (value, value // 2, 50)).save(path)


def _labels(root):
    m = json.loads((root / "manifest.json").read_text())
    return {c["case_id"]: (c["label"], c["source_file"]) for c in m["cases"]}


def _check_private(root):
    for cid, (label, _) in _labels(root).items():
        assert (root / "private" / cid / "label.txt").read_text().strip() == label
        assert Image.open(root / "public" / cid / "image.png").format == "PNG"
        assert not (root / "public" / cid / "label.txt").exists()


def test_brain_tumor_mri_folders_balanced_limit(tmp_path):
    for lab in official.BRAIN_TUMOR_LABELS:
        for k in range(3):
            _img(tmp_path / "src" / "Testing" / lab / f"Te-{lab[:2]}_{k}.jpg", 40 * k + 10, mode="L")
    out = DatasetPaths(tmp_path / "out")
    official.stage_brain_tumor_mri(out, source=tmp_path / "src", limit=8)
    labels = _labels(out.root)
    assert sorted(v[0] for v in labels.values()) == sorted(official.BRAIN_TUMOR_LABELS * 2)
    assert all(cid.startswith("pt_") for cid in labels)      # ids reveal nothing
    _check_private(out.root)
    assert verify_manifest(out) == []


def test_nct_crc_needs_every_class_folder(tmp_path):
    for lab in official.NCT_CRC_LABELS[:-1]:
        _img(tmp_path / "src" / "CRC-VAL-HE-7K" / lab / f"{lab}-0001.tif", 120)
    with pytest.raises(DatasetError, match="TUM"):
        official.stage_nct_crc_he(DatasetPaths(tmp_path / "out"), source=tmp_path / "src")
    _img(tmp_path / "src" / "CRC-VAL-HE-7K" / "TUM" / "TUM-0001.tif", 200)
    official.stage_nct_crc_he(DatasetPaths(tmp_path / "out"), source=tmp_path / "src")
    assert len(_labels(tmp_path / "out")) == 9
    _check_private(tmp_path / "out")


def test_kermany_pneumonia(tmp_path):
    _img(tmp_path / "src" / "chest_xray" / "test" / "NORMAL" / "IM-0001.jpeg", 90, mode="L")
    _img(tmp_path / "src" / "chest_xray" / "test" / "PNEUMONIA" / "person1_virus.jpeg", 60, mode="L")
    official.stage_kermany_pneumonia(DatasetPaths(tmp_path / "out"), source=tmp_path / "src")
    assert sorted(v[0] for v in _labels(tmp_path / "out").values()) == ["NORMAL", "PNEUMONIA"]


def test_pcam_hdf5(tmp_path):
    h5py = pytest.importorskip("h5py")
    src = tmp_path / "src"
    src.mkdir()
    x = np.random.default_rng(0).integers(0, 255, (4, 96, 96, 3), dtype=np.uint8)
    with h5py.File(src / "camelyonpatch_level_2_split_test_x.h5", "w") as f:
        f["x"] = x
    with h5py.File(src / "camelyonpatch_level_2_split_test_y.h5", "w") as f:
        f["y"] = np.array([0, 1, 1, 0], np.uint8).reshape(4, 1, 1, 1)
    out = DatasetPaths(tmp_path / "out")
    official.stage_pcam(out, source=src)
    labels = _labels(out.root)
    for cid, (label, name) in labels.items():
        i = int(name.split("[")[1].rstrip("]"))
        assert label == ("tumor" if i in (1, 2) else "normal")
        assert np.array_equal(np.asarray(Image.open(out.public / cid / "image.png")), x[i])


def test_isic_one_hot_csv_skips_unk(tmp_path):
    src = tmp_path / "src"
    for stem in ("ISIC_0000000", "ISIC_0000001", "ISIC_0000002"):
        _img(src / "ISIC_2019_Training_Input" / f"{stem}.jpg", 150)
    header = "image," + ",".join(official.ISIC_LABELS) + ",UNK\n"
    (src / "ISIC_2019_Training_GroundTruth.csv").write_text(
        header + "ISIC_0000000,0,1.0,0,0,0,0,0,0,0\n"
        "ISIC_0000001,1.0,0,0,0,0,0,0,0,0\nISIC_0000002,0,0,0,0,0,0,0,0,1.0\n")
    official.stage_isic(DatasetPaths(tmp_path / "out"), source=src)
    assert sorted(v for v in _labels(tmp_path / "out").values()) == [("MEL", "ISIC_0000001.jpg"),
                                                                     ("NV", "ISIC_0000000.jpg")]


def test_missing_source_is_a_clear_error(tmp_path):
    with pytest.raises(DatasetError, match="source="):
        official.stage_isic(DatasetPaths(tmp_path / "o"))
    with pytest.raises(DatasetError, match="not a folder"):
        official.stage_pcam(DatasetPaths(tmp_path / "o"), source=tmp_path / "nope")
