"""The synthesis track's datasets: one offline demo and four official stagers."""
from ....data import DatasetInfo
from . import demo, official

_CT_OPTS = {"source": "path to the local copy of the official release", "scale": "z factor (default 4)",
            "limit": "stage at most N volumes", "max_voxels": "skip larger volumes (default 64e6)"}
DATASETS = (
    DatasetInfo(name="ct-brain-zsr-demo", kind="demo", track="synthesis",
                description=("x4 z super-resolution: real CT (the head-CT brain atlas in the TotalSegmentator "
                             "wheel, installed --no-deps), simulated thick slices (slab average). Offline."),
                builder=demo.build_ct_brain_zsr,
                options={"n_cases": "number of cases (default 4)",
                         "seed": "random seed (default 0); same seed -> identical files"}),
    DatasetInfo(name="ctorg-zsr", kind="official", track="synthesis",
                description="CT-ORG CT volumes, x4 z super-resolution, staged from a local copy.",
                builder=official.stage_ctorg, options=_CT_OPTS),
    DatasetInfo(name="msd-pancreas-zsr", kind="official", track="synthesis",
                description="MSD Task07 Pancreas CT volumes, x4 z super-resolution, staged from a local copy.",
                builder=official.stage_msd_pancreas, options=_CT_OPTS),
    DatasetInfo(name="totalseg-zsr", kind="official", track="synthesis",
                description="TotalSegmentator CT volumes, x4 z super-resolution, staged from a local copy.",
                builder=official.stage_totalseg, options=_CT_OPTS),
    DatasetInfo(name="synthrad2025", kind="official", track="synthesis",
                description="SynthRAD2025 Task 1 MRI->CT pairs (.mha), staged from a local copy.",
                builder=official.stage_synthrad2025,
                options={"source": "path to the local SynthRAD2025 copy (holding Task1/)",
                         "regions": "comma-separated regions (default AB,HN,TH)", "limit": "stage at most N patients"}),
)
