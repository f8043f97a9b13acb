"""The report-generation track's datasets: the embedded demo and the official stagers."""
from ....data import DatasetInfo
from . import demo, official

_STAGE = {"source": "path to your local copy of the official release",
          "limit": "stage at most N studies",
          "link": "hard-link images into public/ (default True; copies across file systems)"}

DATASETS = (
    DatasetInfo(name="cxr-report-demo", kind="demo", track="report-generation",
                description=("Radiology report generation: real radiographs from pydicom-data (PA chest, "
                             "AP tibia), simulated findings, templated reference reports; 1-2 views per "
                             "study. Offline."),
                builder=demo.build_cxr_report_demo,
                options={"n_cases": "number of studies (default 36)",
                         "seed": "random seed (default 0); same seed -> identical files"}),
    DatasetInfo(name="mimic-cxr", kind="official", track="report-generation",
                description="MIMIC-CXR-JPG + MIMIC-CXR free-text reports (PhysioNet), from a local copy.",
                builder=official.stage_mimic_cxr,
                options={**_STAGE, "reports": "folder holding files/pXX/.../sNNN.txt (default: source)",
                         "split": "train | validate | test (default test)"}),
    DatasetInfo(name="iu-xray", kind="official", track="report-generation",
                description="Indiana University chest X-ray reports (Open-i), from a local copy.",
                builder=official.stage_iu_xray, options=dict(_STAGE)),
    DatasetInfo(name="chexpert-plus", kind="official", track="report-generation",
                description="CheXpert Plus reports + images, from a local copy.",
                builder=official.stage_chexpert_plus,
                options={**_STAGE, "split": "train | valid (default valid)"}),
    DatasetInfo(name="pathcap", kind="official", track="report-generation",
                description="PathCap pathology image-caption pairs, from a local copy.",
                builder=official.stage_pathcap,
                options={**_STAGE, "captions": "the caption JSON/JSONL file (default: found under source)"}),
)
