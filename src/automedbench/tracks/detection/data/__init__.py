"""Detection datasets: the embedded demo and the official stagers."""
from ....data import DatasetInfo
from . import demo, official

_STAGE_OPTS = {"source": "path to a local copy of the official release",
               "split": "which split to stage (see docs/tracks/detection.md)",
               "limit": "stage at most N images"}

DATASETS = [
    DatasetInfo(
        name="xray-markers", required_case_fields=("width", "height", "boxes"),
        kind="demo", track="detection",
        description=("Radiopaque marker detection (classes marker, ring) on 256x256 radiograph "
                     "tiles: real chest/leg radiographs from pydicom-data, simulated markers "
                     "with known boxes, a third of the cases negative. Offline."),
        builder=demo.build_xray_markers,
        options={"n_cases": "number of cases (default 24)",
                 "seed": "random seed (default 0); same seed -> identical files"}),
    DatasetInfo(
        name="vindr-cxr", required_case_fields=("width", "height", "boxes"),
        kind="official", track="detection",
        description="VinDr-CXR chest radiographs, 14 findings (consensus test labels); local copy, not redistributed.",
        builder=official.stage_vindr_cxr, options=dict(_STAGE_OPTS)),
    DatasetInfo(
        name="bccd", required_case_fields=("width", "height", "boxes"),
        kind="official", track="detection",
        description="BCCD blood-cell smears (RBC, WBC, Platelets), Pascal VOC boxes; local copy.",
        builder=official.stage_bccd, options=dict(_STAGE_OPTS)),
    DatasetInfo(
        name="dentex", required_case_fields=("width", "height", "boxes"),
        kind="official", track="detection",
        description="DENTEX panoramic dental X-rays, 4 diagnoses (COCO JSON); local copy.",
        builder=official.stage_dentex, options=dict(_STAGE_OPTS)),
    DatasetInfo(
        name="grazpedwri-dx", required_case_fields=("width", "height", "boxes"),
        kind="official", track="detection",
        description="GRAZPEDWRI-DX paediatric wrist radiographs, 9 classes (YOLO labels); local copy.",
        builder=official.stage_grazpedwri_dx, options=dict(_STAGE_OPTS)),
]
