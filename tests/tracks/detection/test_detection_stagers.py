"""Official detection stagers, offline, against small trees laid out like each release."""
import json

import numpy as np
import pytest
from PIL import Image

from automedbench.data import DatasetError, DatasetPaths, verify_manifest
from automedbench.tracks.detection.data import official


def _png(path, w=64, h=48, dtype=np.uint8):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray((np.arange(w * h).reshape(h, w) % 200).astype(dtype)).save(path)


def _boxes(root, cid):
    return json.loads((root / "private" / cid / "boxes.json").read_text())


def _dicom(path, arr):
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, SecondaryCaptureImageStorage, generate_uid
    meta = FileMetaDataset()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    meta.MediaStorageSOPClassUID = SecondaryCaptureImageStorage
    meta.MediaStorageSOPInstanceUID = generate_uid()
    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID, ds.SOPInstanceUID = meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID
    ds.Rows, ds.Columns = arr.shape
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, "MONOCHROME1"
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 12, 11, 0
    ds.PixelData = arr.astype(np.uint16).tobytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    ds.save_as(path, enforce_file_format=True)


def test_vindr_cxr(tmp_path):
    src = tmp_path / "src"
    _dicom(src / "test" / "img_a.dicom", np.tile(np.arange(80, dtype=np.uint16) * 40, (60, 1)))
    _dicom(src / "test" / "img_b.dicom", np.full((60, 80), 900, np.uint16))
    (src / "annotations").mkdir()
    (src / "annotations" / "annotations_test.csv").write_text(
        "image_id,rad_id,class_name,x_min,y_min,x_max,y_max\n"
        "img_a,R1,Nodule/Mass,10,5,30,25\nimg_a,R1,Aortic enlargement,0,0,100,50\n"
        "img_a,R1,Clavicle fracture,1,1,3,3\nimg_b,R1,No finding,,,,\n")
    out = DatasetPaths(tmp_path / "out")
    m = official.stage_vindr_cxr(out, source=src)
    assert [c["case_id"] for c in m["cases"]] == ["img_a", "img_b"]
    a = _boxes(out.root, "img_a")
    assert (a["width"], a["height"]) == (80, 60)
    # clipped to the image; a class outside the 14 standard ones is not staged
    assert a["boxes"] == [{"class": "Nodule/Mass", "x1": 10, "y1": 5, "x2": 30, "y2": 25},
                          {"class": "Aortic enlargement", "x1": 0, "y1": 0, "x2": 80, "y2": 50}]
    assert _boxes(out.root, "img_b")["boxes"] == [] and not m["cases"][1]["positive"]
    img = np.asarray(Image.open(out.public / "img_a" / "image.png"))
    assert img.shape == (60, 80) and img[0, 0] > img[0, -1]     # MONOCHROME1 inverted
    assert verify_manifest(out) == []


def test_bccd_voc_boxes_become_corners(tmp_path):
    base = tmp_path / "src" / "BCCD"
    for stem in ("BloodImage_00001", "BloodImage_00002"):
        (base / "JPEGImages").mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (64, 48), (200, 100, 100)).save(base / "JPEGImages" / f"{stem}.jpg")
        (base / "Annotations").mkdir(exist_ok=True)
        (base / "Annotations" / f"{stem}.xml").write_text(
            "<annotation><size><width>64</width><height>48</height></size>"
            "<object><name>WBC</name><bndbox><xmin>11</xmin><ymin>6</ymin><xmax>30</xmax><ymax>20</ymax></bndbox></object>"
            "<object><name>RBC</name><bndbox><xmin>50</xmin><ymin>40</ymin><xmax>70</xmax><ymax>48</ymax></bndbox></object>"
            "</annotation>")
    (base / "ImageSets" / "Main").mkdir(parents=True)
    (base / "ImageSets" / "Main" / "test.txt").write_text("BloodImage_00002\n")
    out = DatasetPaths(tmp_path / "out")
    m = official.stage_bccd(out, source=tmp_path / "src")
    assert [c["case_id"] for c in m["cases"]] == ["BloodImage_00002"]
    assert _boxes(out.root, "BloodImage_00002")["boxes"] == [
        {"class": "WBC", "x1": 10, "y1": 5, "x2": 30, "y2": 20},
        {"class": "RBC", "x1": 49, "y1": 39, "x2": 64, "y2": 48}]
    assert Image.open(out.public / "BloodImage_00002" / "image.png").size == (64, 48)


def test_dentex_coco_json_with_disease_categories(tmp_path):
    src = tmp_path / "src" / "quadrant-enumeration-disease"
    _png(src / "xrays" / "train_1.png", 100, 50)
    _png(src / "xrays" / "train_2.png", 100, 50)
    (src / "train.json").write_text(json.dumps({
        "images": [{"id": 1, "file_name": "train_1.png", "width": 100, "height": 50},
                   {"id": 2, "file_name": "train_2.png", "width": 100, "height": 50}],
        "categories_3": [{"id": 0, "name": "Impacted"}, {"id": 1, "name": "Caries"}],
        "annotations": [{"image_id": 1, "bbox": [10, 10, 20, 5], "category_id_3": 1},
                        {"image_id": 1, "bbox": [50, 20, 10, 10], "category_id_3": 0}]}))
    out = DatasetPaths(tmp_path / "out")
    m = official.stage_dentex(out, source=tmp_path / "src")
    assert [c["n_boxes"] for c in m["cases"]] == [2, 0]
    assert _boxes(out.root, "train_1")["boxes"][0] == {"class": "Caries", "x1": 10, "y1": 10, "x2": 30, "y2": 15}


def test_grazpedwri_yolo_labels(tmp_path):
    src = tmp_path / "src"
    _png(src / "images" / "0001_a.png", 200, 100, np.uint16)
    (src / "labels").mkdir()
    (src / "labels" / "0001_a.txt").write_text("3 0.5 0.5 0.2 0.4\n8 0.95 0.1 0.2 0.2\n")
    out = DatasetPaths(tmp_path / "out")
    official.stage_grazpedwri_dx(out, source=src)
    b = _boxes(out.root, "0001_a")["boxes"]
    assert b[0] == {"class": "fracture", "x1": 80, "y1": 30, "x2": 120, "y2": 70}
    assert b[1]["class"] == "text" and b[1]["x2"] == 200            # clipped at the border
    # the 16-bit PNG is copied byte for byte
    assert (out.public / "0001_a" / "image.png").read_bytes() == (src / "images" / "0001_a.png").read_bytes()


def test_stagers_refuse_missing_source_or_empty_tree(tmp_path):
    with pytest.raises(DatasetError, match="source"):
        official.stage_bccd(DatasetPaths(tmp_path / "o1"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="no images"):
        official.stage_grazpedwri_dx(DatasetPaths(tmp_path / "o2"), source=tmp_path / "empty")
    with pytest.raises(DatasetError, match="annotations_test.csv"):
        official.stage_vindr_cxr(DatasetPaths(tmp_path / "o3"), source=tmp_path / "empty")
