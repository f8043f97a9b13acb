"""Scoring profiles (docs/scoring-profiles.md): every run's task score is computed twice.

  ours       the track's `aggregate` (the default everywhere: board, medals, overall score)
  reference  the published reference's task-score definition for this track, when the track
             declares one: an optional capability `reference_score(records, options, context)
             -> ProfileScore`. A track without it gets `not_defined()`.

Both land in detail_report.json (`task.profile_scores`); `--profile reference` on score / run /
sweep prints the reference number, and the board can switch to it. The reference profile never
changes the overall score, the medal or the rating.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .base import CaseRecord, ScoringContext

PROFILES = ("ours", "reference")


@dataclass(frozen=True)
class ProfileScore:
    score: float | None           # None: not defined for this track, or not computable here
    definition: str               # one line: what the number is
    note: str = ""                # why it is None, or what the reference leaves undefined


class ReferenceScorer(Protocol):
    def reference_score(self, records: list[CaseRecord], options: Any,
                        context: ScoringContext) -> ProfileScore: ...


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
    if not isinstance(result, ProfileScore):
        return ProfileScore(None, "", f"reference profile returned {type(result).__name__}, not ProfileScore")
    return result
