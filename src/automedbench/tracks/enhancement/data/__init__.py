"""The enhancement track's datasets: two offline demos and two official stagers."""
from ....data import DatasetInfo
from . import demo, official

_DEMO_OPTS = {"n_cases": "number of cases (default 8)", "seed": "random seed (default 0); same seed -> identical files"}
_OFFICIAL_OPTS = {"source": "path to the local copy of the official release",
                  "slices_per_volume": "slices taken per volume (default 4)",
                  "limit": "stage at most N volumes", "bands": "compute bands.json (default True)"}
DATASETS = (
    DatasetInfo(name="ldct-demo", kind="demo", track="enhancement",
                description=("LDCT denoising: real CT slices (pydicom test files), simulated "
                             "projection-domain Poisson low-dose noise. Offline."),
                builder=demo.build_ldct_demo, options=_DEMO_OPTS),
    DatasetInfo(name="mri-sr-demo", kind="demo", track="enhancement",
                description=("MRI x2 super-resolution: real MR slices (MNI152 via nilearn, pydicom-data), "
                             "simulated 2x2 block down-sampling. Offline."),
                builder=demo.build_mri_sr_demo, options=_DEMO_OPTS),
    DatasetInfo(name="ldct-simnict", kind="official", track="enhancement",
                description="LDCT-SimNICT paired low-/normal-dose CT, staged from a local copy (not redistributed).",
                builder=official.stage_simnict,
                options={**_OFFICIAL_OPTS, "low_dir": "folder of low-dose volumes (default low_dose)",
                         "full_dir": "folder of normal-dose volumes (default full_dose)"}),
    DatasetInfo(name="fastmri-sr", kind="official", track="enhancement",
                description="fastMRI knee/brain reconstructions, x2 super-resolution, staged from local HDF5 files.",
                builder=official.stage_fastmri_sr,
                options={**_OFFICIAL_OPTS, "scale": "down-sampling factor (default 2)"}),
)
