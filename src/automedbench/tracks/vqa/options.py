"""The `track_options` of a vqa task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ANSWER_FILE = "answer.json"   # what each case's folder holds (the submission layout of track.py)


class VQAOptions(BaseModel):
    """task.yaml `track_options` for a VQA task."""

    model_config = ConfigDict(extra="forbid")
    mode: Literal["open", "mcq", "mixed"] = "open"   # mixed: MCQ where the question has options
    max_answer_bytes: int = Field(default=65_536, gt=0)       # a larger answer.json is refused, not read
    use_answer_judge: bool = True                     # ask the core's LLM answer judge when wired
    reference_method: str = "vqa_rules.py"
