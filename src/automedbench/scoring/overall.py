"""Overall, medal and rating (docs/scoring.md#overall, #medals-and-rating).

Medal bands are data, resolved in this order: the task's `medal_bands:` (task.yaml), then the
dataset's `bands.json` (e.g. computed from baselines by the track), then the track's default.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..tracks.base import MedalBands

RATING_FOR_MEDAL = {"good": "A", "okay": "B", "none": "C"}


def overall_score(agentic: float | None, task: float | None) -> float | None:
    return None if agentic is None or task is None else 0.5 * agentic + 0.5 * task


def resolve_bands(task: Any, dataset_root: Path | None) -> MedalBands:
    if task.medal_bands:
        return MedalBands.model_validate({**task.medal_bands, "source": "task.yaml"})
    if dataset_root is not None:
        path = Path(dataset_root) / "bands.json"
        if path.is_file():
            try:
                raw = json.loads(path.read_text())
                return MedalBands.model_validate({**raw, "source": f"{path.parent.name}/bands.json"})
            except (OSError, ValueError):
                pass  # a broken bands file falls back to the track's default (recorded in the report)
    return task.track_impl.default_bands(task.options)


def medal_and_rating(bands: MedalBands, metrics: dict[str, float | None], any_valid: bool,
                     disqualified: bool) -> tuple[str, str]:
    if disqualified or not any_valid:
        return "none", "F"
    value = metrics.get(bands.metric)
    if value is None and bands.fallback_metric:
        value = metrics.get(bands.fallback_metric)
    medal = "none"
    if value is not None and value >= bands.good:
        medal = "good"
    elif value is not None and value >= bands.okay:
        medal = "okay"
    return medal, RATING_FOR_MEDAL[medal]
