"""The `track_options` of a segmentation task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class SegmentationOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Literal["organ_lesion", "multiclass"]
    organ_file: str = "organ.nii.gz"
    lesion_file: str = "lesion.nii.gz"
    label_file: str = "labels.nii.gz"
    labels: dict[int, str] = Field(default_factory=dict, description="multiclass: label value -> name")
    input_file: str = "image.nii.gz"
    organ_name: str = Field("organ", description="what the organ mask covers, for the contract text")
    lesion_name: str = Field("lesion", description="what the lesion mask covers")
    reference_method: str | None = Field(None, description="methods/<file> the scripted agents run")
    intensity_order: list[int] = Field(
        default_factory=list, description="multiclass: label values from the darkest to the brightest in the "
        "input, as the modality's contrast orders them (a plausibility relation, docs/judge.md)")

    @model_validator(mode="after")
    def _labels_for_multiclass(self) -> "SegmentationOptions":
        if self.variant == "multiclass":
            if not self.labels:
                raise ValueError("variant multiclass needs `labels: {1: name, ...}`")
            if min(self.labels) < 1 or max(self.labels) > 255:
                raise ValueError("labels must be integers in 1..255 (0 is background)")
        if set(self.intensity_order) - set(self.labels):
            raise ValueError(f"intensity_order names labels that are not in `labels`: "
                             f"{sorted(set(self.intensity_order) - set(self.labels))}")
        return self
