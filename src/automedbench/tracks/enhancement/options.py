"""The `track_options` of a enhancement task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class EnhancementOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Literal["denoise", "super_resolution"]
    scale: int = Field(2, ge=2, le=8, description="super-resolution factor")
    input_file: str = "input.npy"
    output_file: str = "enhanced.npy"
    reference_file: str = "reference.npy"
    lpips: bool = Field(True, description="compute LPIPS when the [lpips] extra is installed")
