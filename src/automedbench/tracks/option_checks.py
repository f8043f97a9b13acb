"""Validators shared by the tracks' option models (task.yaml `track_options`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationInfo

# the 2-D image formats a one-image track reads (Pillow opens each)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")
M = TypeVar("M", bound=BaseModel)


def distinct_names(values: list[str], what: str) -> list[str]:
    """Class or label names: each non-empty, no two equal ignoring case and outer spaces
    (the scorers fold case, so "Nodule" and "nodule" would silently be one class)."""
    folded = [v.strip().casefold() for v in values]
    if len(set(folded)) != len(folded) or not all(folded):
        raise ValueError(f"{what} must be non-empty and distinct (case-insensitive)")
    return values


def is_image(name: str) -> bool:
    return name.lower().endswith(IMAGE_SUFFIXES)


def image_file_follows_inputs(model: M, info: ValidationInfo) -> M:
    """An options model's `image_file` follows the task's `input_files` (docs/your-task.md
    section 3): a task that does not set it gets the first image its input_files names
    (`input_files: [image.jpg]` -> `image.jpg`); one that sets it to a file its input_files
    does not name is refused (staging would look for one file, the agent be told of another).
    The task passes its input_files as the validation context (Task.validate_track); options
    parsed without a task keep the default."""
    inputs = [str(f) for f in ((info.context or {}).get("input_files") or [])]
    images = [f for f in inputs if is_image(f)]
    options: Any = model   # an options model with an `image_file` field
    current = options.image_file
    if "image_file" not in model.model_fields_set:
        if images and current not in images:
            options.image_file = images[0]
    elif images and current not in inputs:
        raise ValueError(f"image_file {current!r} is not among the task's input_files {inputs}; fix: drop "
                         f"image_file (it follows input_files) or name {current} in input_files")
    return model


def wrong_image_type(found: list[Path], options: Any, where: str) -> str:
    """The refusal of a folder whose images are not of the task's type: which type they are and
    the field to set (image_file follows input_files: image_file_follows_inputs)."""
    suffixes = sorted({p.suffix.lower() for p in found})
    want = options.image_file
    return (f"{where} holds {', '.join(f'*{s}' for s in suffixes)} images, not *{Path(want).suffix} (the task's "
            f"image file is {want}: track_options.image_file, which follows input_files); fix: set "
            f"`input_files: [{Path(want).stem}{suffixes[0]}]` in task.yaml")
