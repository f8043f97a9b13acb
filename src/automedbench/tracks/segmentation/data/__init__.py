"""Segmentation datasets: embedded demo builders (real MNI152 anatomy, simulated findings)
and official stagers (from a local copy of the release; never redistributed)."""
from __future__ import annotations

from ....data import DatasetInfo
from . import demo_brain, kits19

DATASETS = [
    DatasetInfo(
        name="mni-brain-lesion",
        description=("Brain + lesion segmentation, 2 mm T1-like volumes: real MNI152 "
                     "anatomy (nilearn), simulated deformation/noise/lesions. Offline."),
        kind="demo", track="segmentation",
        builder=demo_brain.build_mni_brain_lesion,
        required_case_fields=("lesion_positive",),
        options={"n_cases": "number of cases (default 6)",
                 "seed": "random seed (default 0); same seed -> identical files"}),
    DatasetInfo(
        name="mni-brain-tissue",
        description=("CSF / grey / white matter segmentation, 2 mm T1-like volumes: real "
                     "MNI152 anatomy and tissue maps (nilearn), simulated "
                     "deformation/noise. Offline."),
        kind="demo", track="segmentation",
        builder=demo_brain.build_mni_brain_tissue,
        options={"n_cases": "number of cases (default 6)",
                 "seed": "random seed (default 0); same seed -> identical files"}),
    DatasetInfo(
        name="kits19",
        description=("KiTS19 abdominal CT, kidney (organ) + tumour (lesion), staged from "
                     "a local copy of the official release (not redistributed)."),
        kind="official", track="segmentation",
        builder=kits19.stage_kits19,
        required_case_fields=("lesion_positive",),
        options={"source": "path to the official kits19 clone (or its data/ folder)",
                 "cases": "subset of case ids / indices",
                 "limit": "stage at most N usable cases",
                 "download": "fetch from the official URLs when no source is given",
                 "download_dir": "where downloads go (default <data_root>/_sources/kits19)",
                 "link": "hard-link imaging into public/ (default True)"}),
]
