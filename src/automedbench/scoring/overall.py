"""Overall, medal and rating (docs/scoring.md#overall, #medals-and-rating).

Medal bands are data, resolved in this order: the task's `medal_bands:` (task.yaml), then the
dataset's `bands.json` (e.g. computed from baselines by the track), then the track's default.
Where the track reports the chance level of the bands' metric (`chance_level.<metric>` among
its aggregate metrics), the bands are read from chance up (docs/scoring.md "Medals start above
chance").
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..tracks.base import MedalBands
from .rubric import Rubric, load_rubric

RATING_FOR_MEDAL = {"good": "A", "okay": "B", "none": "C"}


def overall_score(agentic: float | None, task: float | None, rubric: Rubric | None = None) -> float | None:
    """The rubric's weights of Agentic and Task (scoring/rubric.yaml `overall`, docs/scoring.md#overall);
    None when either half is None."""
    if agentic is None or task is None:
        return None
    w = (rubric or load_rubric()).overall
    return w["agentic"] * agentic + w["task"] * task


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


def bands_above_chance(bands: MedalBands, metrics: dict[str, float | None]) -> tuple[MedalBands, dict[str, Any]]:
    """Bands read on the scale from chance (0) to a perfect score (1): a declared floor f
    becomes chance + f * (1 - chance), chance being `metrics["chance_level.<bands.metric>"]`,
    so every floor above 0 lies above chance and doing no better than chance earns no medal
    (docs/scoring.md "Medals start above chance"). Returns the bands the medal is read from and
    what the report shows about them ({} when the track names no chance level above 0 for the
    bands' metric)."""
    chance = metrics.get(f"chance_level.{bands.metric}")
    if chance is None or not chance > 0:
        return bands, {}
    c = min(float(chance), 1.0)
    raised = bands.model_copy(update={"good": round(c + bands.good * (1 - c), 4),
                                      "okay": round(c + bands.okay * (1 - c), 4)})
    return raised, {"chance": round(c, 4), "declared": {"good": bands.good, "okay": bands.okay}}


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
