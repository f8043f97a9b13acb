"""A task = one folder holding `task.yaml` and optional per-tier skill files.

    <task_id>/task.yaml
    <task_id>/skills/<tier>/s1.md ... s5.md      (optional, per tier)

Tasks are discovered from the package's built-in folder, then from every directory in
`AUTOMEDBENCH_TASKS` (os.pathsep-separated) and `--tasks-dir`, so users add tasks without
touching code. A later folder with the same id overrides an earlier one.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from .. import yamlfile
from ..errors import UserError, first_field_error
from ..tracks import TrackError, get_track
from ..tracks.base import PRESENTATION, MedalBands

Tier = Literal["lite", "standard", "pro"]
TIERS: tuple[str, ...] = ("lite", "standard", "pro")


class TaskError(UserError, ValueError):
    """A task folder is malformed. The message names the file and the field."""


class LiteInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field(description="the exact model/method the agent must use")
    requirements: list[str] = Field(default_factory=list, description="pinned requirements.txt lines")


class StandardInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    candidates: list[str] = Field(min_length=2, max_length=5)


class ProInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    background: str


class TierInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lite: LiteInfo
    standard: StandardInfo
    pro: ProInfo


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    title: str
    track: str
    dataset: str
    description: str = Field(description="the clinical/research goal, shown in every tier")
    case_unit: str = "case"
    input_files: list[str]
    target_keywords: list[str] = Field(default_factory=list,
                                       description="words a plan that fits the target names (rubric s1c)")
    time_limit_s: int = 3600
    max_turns: int = 60
    network: bool = True
    block_training: bool = Field(default=False, description="refuse (not only flag) training code")
    track_options: dict[str, Any] = Field(default_factory=dict,
                                          description="validated by the track's options model at load")
    medal_bands: dict[str, Any] | None = Field(default=None, description="override the track's default bands")
    demo: bool = Field(default=False, description="part of `automedbench demo`'s default cells")
    gpu: bool = Field(default=False, description="runs want one GPU: a sweep gives each one GPU slot "
                                                 "and sets CUDA_VISIBLE_DEVICES")
    tiers: TierInfo
    folder: Path | None = Field(default=None, exclude=True)
    _options: Any = PrivateAttr(default=None)

    @property
    def options(self) -> Any:
        """The track's validated options model (set by load_task / validate_track)."""
        if self._options is None:
            self.validate_track()
        return self._options

    def validate_track(self, source: str = "task.yaml") -> None:
        try:
            track = get_track(self.track)
        except TrackError as exc:
            raise TaskError(f"{source}: field 'track': {exc}") from None
        try:
            # unknown keys refused; options may follow input_files (docs/tracks.md)
            self._options = track.parse_options(self.track_options, {"input_files": list(self.input_files)})
        except ValidationError as exc:
            raise TaskError(f"{source}: {first_field_error(exc, under='track_options')}") from None
        if self.medal_bands is not None:
            try:
                MedalBands.model_validate({**self.medal_bands, "source": "task.yaml"})
            except ValidationError as exc:
                raise TaskError(f"{source}: {first_field_error(exc, under='medal_bands')}") from None

    @property
    def track_impl(self) -> Any:
        return get_track(self.track)

    @property
    def submission(self) -> Any:
        """The track's SubmissionLayout for this task (output contract + format check)."""
        return self.track_impl.submission(self.options)

    @property
    def output_files(self) -> list[str]:
        return self.submission.file_names

    def snapshot(self) -> dict[str, Any]:
        """What defines this task, for run.json (reproducibility): the YAML fields + skills."""
        data = self.model_dump(mode="json")
        skills = {}
        if self.folder is not None and (self.folder / "skills").is_dir():
            for f in sorted((self.folder / "skills").rglob("*.md")):
                skills[str(f.relative_to(self.folder))] = f.read_text()
        data["skills"] = skills
        return data

    def hashed_snapshot(self) -> dict[str, Any]:
        """The snapshot the task's version (its hash) is computed from: without the track options
        a track marks as presentation only (`json_schema_extra=PRESENTATION`: how pictures are
        drawn), so changing them never splits a board (docs/tracks.md)."""
        data = self.snapshot()
        fields = getattr(type(self.options), "model_fields", {})
        shown = {name for name, f in fields.items() if (f.json_schema_extra or {}) == PRESENTATION}
        data["track_options"] = {k: v for k, v in data.get("track_options", {}).items() if k not in shown}
        return data

    @field_validator("id")
    @classmethod
    def _id_is_slug(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", v):
            raise ValueError("must be lower-case letters, digits, '-' or '_'")
        return v

    def skill(self, tier: str, stage: str) -> str:
        """Per-tier stage skill text, or '' when the task has none for that stage."""
        if self.folder is None:
            return ""
        path = self.folder / "skills" / tier / f"{stage}.md"
        return path.read_text().strip() if path.is_file() else ""


def load_task(folder: Path) -> Task:
    path = folder / "task.yaml"
    if not path.is_file():
        raise TaskError(f"{path}: missing task.yaml")
    try:
        raw = yamlfile.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise TaskError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise TaskError(f"{path}: expected a mapping at the top level")
    try:
        task = Task.model_validate(raw)
    except ValidationError as exc:
        raise TaskError(f"{path}: {first_field_error(exc, root='(top level)')}") from None
    if task.id != folder.name:
        raise TaskError(f"{path}: field 'id': {task.id!r} must equal the folder name {folder.name!r}")
    task.folder = folder
    task.validate_track(str(path))
    return task
