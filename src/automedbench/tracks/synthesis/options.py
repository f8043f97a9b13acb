"""The `track_options` of a synthesis task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...metrics.ssim import WIN_SIZE


class SynthesisOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Literal["ct_zsr", "mri_to_ct"]
    scale: int = Field(4, ge=2, le=8, description="z super-resolution factor (ct_zsr)")
    input_file: str = "lowres.nii.gz"
    output_file: str = "sct.nii.gz"
    reference_file: str = "reference.nii.gz"
    hu_clip: tuple[float, float] | None = Field(None, description="clip both volumes before SSIM")
    win_size: int = WIN_SIZE
