"""Scoring profiles (docs/scoring-profiles.md): every run's task score is computed twice.

  ours       the track's `aggregate` (the default everywhere: board, medals, overall score)
  reference  the published reference's task-score definition for this track: the optional
             capability `TrackScoring.reference_score(records, options, context)` (tracks/base.py;
             default None = `not_defined()`).

Both land in detail_report.json (`task.profile_scores`); `--profile reference` on score / run /
sweep prints the reference number, and the board can switch to it. The reference profile never
changes the overall score, the medal or the rating.
"""
from __future__ import annotations

from typing import Any

from .base import CaseRecord, ProfileScore, ScoringContext

__all__ = ["PROFILES", "ProfileScore", "not_defined", "reference_profile"]

PROFILES = ("ours", "reference")


def not_defined() -> ProfileScore:
    return ProfileScore(None, "", "not defined for this track: the published reference has no scorer for it")


def reference_profile(track: Any, records: list[CaseRecord], options: Any,
                      context: ScoringContext) -> ProfileScore:
    """The track's reference-profile score, or why there is none. Never raises: a scorer
    failure is recorded as the note (the run's own score is unaffected)."""
    scorer = getattr(track, "reference_score", None)
    if scorer is None:
        return not_defined()
    try:
        result = scorer(records, options, context)
    except Exception as exc:  # noqa: BLE001 — a profile must never break scoring
        return ProfileScore(None, "", f"reference profile failed: {type(exc).__name__}: {exc}")
    if result is None:
        return not_defined()
    if not isinstance(result, ProfileScore):
        return ProfileScore(None, "", f"reference profile returned {type(result).__name__}, not ProfileScore")
    return result
