"""Tracks by name. A track is a plug-in: output contract + pure check/score/aggregate."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml


def get_track(name: str):
    if name == "segmentation":
        from .segmentation import SegmentationTrack
        return SegmentationTrack()
    raise KeyError(f"unknown track {name!r}; implemented: segmentation")


@lru_cache(maxsize=1)
def medal_bands() -> dict:
    return yaml.safe_load((Path(__file__).with_name("bands.yaml")).read_text())
