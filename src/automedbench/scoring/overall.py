"""Overall, medal and rating (SPEC §1, §4). Bands are data (tracks/bands.yaml)."""
from __future__ import annotations

from ..tracks import medal_bands


def overall_score(agentic: float | None, task: float) -> float | None:
    return None if agentic is None else 0.5 * agentic + 0.5 * task


def medal_and_rating(track: str, variant: str, aggregate: dict[str, float], any_valid: bool,
                     disqualified: bool) -> tuple[str, str]:
    bands = medal_bands()
    if disqualified or not any_valid:
        return "none", "F"
    band = bands[track][variant]
    value = aggregate.get(band["metric"])
    if value is None and band.get("fallback_metric"):
        value = aggregate.get(band["fallback_metric"])
    medal = "none"
    if value is not None and value >= band["good"]:
        medal = "good"
    elif value is not None and value >= band["okay"]:
        medal = "okay"
    return medal, bands["rating_for_medal"][medal]
