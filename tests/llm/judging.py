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


def cite(verdict, calls=(1,)):
    """The verdict with evidence citing `calls` for every item (call #1 exists in these traces);
    a stage that already carries evidence keeps it."""
    out = json.loads(json.dumps(verdict))
    for st in out.values():
        if isinstance(st, dict) and isinstance(st.get("items"), dict) and "evidence" not in st:
            st["evidence"] = {i: {"calls": list(calls), "files": []} for i in st["items"]}
    return out


def answer(obj):
    return completion(json.dumps(cite(obj)) if not isinstance(obj, str) else obj)
