"""Classification datasets: the embedded demo and the official stagers."""
from ....data import DatasetInfo
from . import demo, official

_STAGE_OPTS = {"source": "path to a local copy of the official release",
               "split": "which split to stage (see docs/tracks/classification.md)",
               "limit": "stage at most N images (balanced over classes where possible)"}

DATASETS = [
    DatasetInfo(
        name="modality-patches", required_case_fields=("label",),
        kind="demo", track="classification",
        description=("Imaging modality of 64x64 patches (ct, mr, xray, ultrasound, histology): "
                     "real images from pydicom-data / scikit-image, real labels, balanced, 100 "
                     "cases, 8 labelled examples per class in public/_examples. Offline."),
        builder=demo.build_modality_patches,
        options={"n_cases": "number of cases (default 100)",
                 "seed": "random seed (default 0); same seed -> identical files"}),
    DatasetInfo(
        name="brain-tumor-mri", required_case_fields=("label",),
        kind="official", track="classification",
        description="Brain Tumor MRI (glioma, meningioma, notumor, pituitary); local copy, not redistributed.",
        builder=official.stage_brain_tumor_mri,
        options=dict(_STAGE_OPTS)),
    DatasetInfo(
        name="nct-crc-he", required_case_fields=("label",),
        kind="official", track="classification",
        description="NCT-CRC-HE-100K / CRC-VAL-HE-7K colorectal H&E tiles, 9 tissue classes; local copy.",
        builder=official.stage_nct_crc_he,
        options=dict(_STAGE_OPTS)),
    DatasetInfo(
        name="pcam", required_case_fields=("label",),
        kind="official", track="classification",
        description="PatchCamelyon 96x96 lymph-node patches, tumour yes/no (HDF5, needs h5py); local copy.",
        builder=official.stage_pcam,
        options=dict(_STAGE_OPTS)),
    DatasetInfo(
        name="kermany-pneumonia", required_case_fields=("label",),
        kind="official", track="classification",
        description="Kermany paediatric chest X-ray, NORMAL vs PNEUMONIA; local copy.",
        builder=official.stage_kermany_pneumonia,
        options=dict(_STAGE_OPTS)),
    DatasetInfo(
        name="isic2019", required_case_fields=("label",),
        kind="official", track="classification",
        description="ISIC 2019 dermoscopy, 8 diagnoses (one-hot ground-truth CSV); local copy.",
        builder=official.stage_isic,
        options=dict(_STAGE_OPTS)),
]
