"""The `track_options` of a detection task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ..option_checks import distinct_names, image_file_follows_inputs


class DetectionOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    classes: list[str] = Field(min_length=1, description="the only accepted class names")
    class_agnostic: bool = Field(False, description='score all boxes as one class ("abnormality")')
    iou_threshold: float = Field(0.5, gt=0, lt=1)
    max_dets: int = Field(100, ge=1, description="detections per image and class that count (COCO: 100)")
    max_boxes: int = Field(1000, ge=1, description="more boxes than this in one file: invalid")
    image_file: str = Field("image.png", description="the image each case holds; default: the image "
                            "input_files names (docs/your-task.md section 3)")
    output_file: str = "prediction.json"
    reference_method: str | None = Field(None, description="methods/<file> the scripted agents run (demo tasks)")

    @field_validator("classes")
    @classmethod
    def _distinct(cls, v: list[str]) -> list[str]:
        return distinct_names(v, "class names")

    @model_validator(mode="after")
    def _image_from_inputs(self, info: ValidationInfo) -> DetectionOptions:
        return image_file_follows_inputs(self, info)
