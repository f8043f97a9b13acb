"""The `track_options` of a enhancement task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..base import PRESENTATION


class DisplayWindow(BaseModel):
    """A grey window for the run page's pictures (docs/site.md "Pictures of outputs"): values
    from level - width/2 (black) to level + width/2 (white), in the images' units (HU for CT)."""
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=40)
    level: float
    width: float = Field(gt=0)


class EnhancementOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Literal["denoise", "super_resolution"]
    scale: int = Field(2, ge=2, le=8, description="super-resolution factor")
    input_file: str = "input.npy"
    output_file: str = "enhanced.npy"
    reference_file: str = "reference.npy"
    display_windows: list[DisplayWindow] = Field(
        default_factory=list, max_length=4, json_schema_extra=PRESENTATION,
        description="grey windows of the pictures, one picture each; none: the reference's 1st-99th percentile")
    lpips: bool = Field(True, description="compute LPIPS when the [lpips] extra is installed")
