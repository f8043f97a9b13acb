"""VQA datasets: the embedded demo (open + multiple choice) and the official stagers."""
from __future__ import annotations

from ....data import DatasetInfo
from . import demo, official

_DEMO_OPTIONS = {"n_cases": "number of questions (default 120)",
                 "seed": "random seed (default 0); same seed -> identical files"}
_OFFICIAL_OPTIONS = {"source": "path to your local copy of the official release",
                     "split": "which split to stage (default: the test split)",
                     "limit": "stage at most N questions",
                     "link": "hard-link images into public/ (default True)"}
_OFFICIAL = {
    "vqa-rad": official.stage_vqa_rad, "slake-en": official.stage_slake_en, "pathvqa": official.stage_pathvqa,
    "pmc-vqa": official.stage_pmc_vqa, "medxpertqa-mm": official.stage_medxpertqa_mm, "omnimedvqa": official.stage_omnimedvqa,
    "kvasir-vqa": official.stage_kvasir_vqa, "medframeqa": official.stage_medframeqa, "mmmu-med": official.stage_mmmu_med,
}

DATASETS: tuple[DatasetInfo, ...] = (
    DatasetInfo(name="vqa-demo-open", kind="demo", track="vqa",
                description=("Open-ended medical VQA on real images shipped in PyPI packages (nilearn, "
                             "pydicom-data, scikit-image), simulated lesions, templated questions. Offline."),
                builder=demo.build_vqa_demo_open, options=_DEMO_OPTIONS),
    DatasetInfo(name="vqa-demo-mcq", kind="demo", track="vqa",
                description=("Multiple-choice medical VQA on real images shipped in PyPI packages, simulated "
                             "lesions, templated questions with 2-4 options. Offline."),
                builder=demo.build_vqa_demo_mcq, options=_DEMO_OPTIONS),
    *(DatasetInfo(name=name, kind="official", track="vqa",
                  description=f"{name}: staged from a local copy of the official release (not redistributed).",
                  builder=func, options=_OFFICIAL_OPTIONS)
      for name, func in _OFFICIAL.items()),
)
