"""The manifest.json of a staged dataset, as a model (its JSON Schema is exported to
schemas/manifest.schema.json; docs/your-task.md describes every field)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ManifestCase(BaseModel):
    """One case. Besides the fixed keys, a case holds the per-case metadata its track's scoring
    reads (docs/your-task.md lists each track's keys): extra keys are kept."""

    model_config = ConfigDict(extra="allow")
    case_id: str = Field(description="folder name under public/ and private/")
    files: dict[str, str] = Field(default_factory=dict,
                                  description="path relative to the dataset root -> sha256 of the file")


class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow")
    dataset: str = Field(description="the dataset's name (its folder under the data root)")
    description: str = ""
    provenance: dict[str, Any] = Field(default_factory=dict,
                                       description="where the data came from (a builder, an official release, "
                                                   "a folder: source, folder, task, track, skipped)")
    cases: list[ManifestCase]
    stage_options: dict[str, Any] | None = Field(None, description="options the dataset was staged with")
