"""The `track_options` of a classification task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ..option_checks import distinct_names, image_file_follows_inputs

# the private file holding a case's reference label (the track and the folder stager write/read it)
REFERENCE_FILE = "label.txt"


class ClassificationOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    labels: list[str] = Field(min_length=2, description="the accepted labels")
    output_file: str = "predictions.csv"
    key: str = "patient_id"
    label_column: str = "label"
    image_file: str = Field("image.png", description="the image each case holds; default: the image "
                            "input_files names (docs/your-task.md section 3)")
    reference_method: str | None = Field(None, description="methods/<file> the scripted agents run (demo tasks)")
    examples_per_class: int = Field(0, ge=0, description="staging from a folder: the first N images of each "
                                    "label become labelled examples in public/_examples/, not cases")

    @field_validator("labels")
    @classmethod
    def _distinct(cls, v: list[str]) -> list[str]:
        return distinct_names(v, "labels")

    @model_validator(mode="after")
    def _image_from_inputs(self, info: ValidationInfo) -> ClassificationOptions:
        return image_file_follows_inputs(self, info)
