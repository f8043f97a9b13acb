"""What the LLM-judge tests share: a task, a full verdict, and the fake server's answer."""
import json

from automedbench.tasks.model import Task

from .fake_openai import completion

TASK = Task.model_validate({
    "id": "kits-demo", "title": "Kidney tumour segmentation", "track": "segmentation", "dataset": "demo",
    "description": "Segment kidney and kidney tumour in abdominal CT.", "input_files": ["ct.nii.gz"],
    "track_options": {"variant": "organ_lesion"},
    "tiers": {"lite": {"model": "nnU-Net KiTS19"}, "standard": {"candidates": ["nnU-Net", "MONAI SwinUNETR"]},
              "pro": {"background": "renal cell carcinoma"}}})

FULL = {"s1": {"items": {"s1a": 1, "s1b": 1, "s1c": 0, "s1d": 1, "s1e": 1, "s1f": 0}, "rationale": "plan ok"},
        "s2": {"items": {"s2a": 1, "s2b": 0, "s2c": 1, "s2d": 1, "s2e": 1}, "rationale": "setup ok"},
        "s3": {"items": {"s3": 0.5}, "rationale": "partial pilot"}}


def answer(obj):
    return completion(json.dumps(obj) if not isinstance(obj, str) else obj)
