"""Reducers a track's `aggregate` names instead of re-writing them (docs/tracks.md).

The core's rules (reference errors left out, missing/invalid cases count 0, score ×
completion) are applied in scoring/task_score.py; these helpers compute the usual numbers over
the records the core hands over, with the same rule for a case without a valid score: it
counts 0 in a mean over cases, and is skipped in a mean over the values present.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from .base import CaseRecord, CaseStatus


def case_value(record: CaseRecord, key: str) -> float:
    """One case's metric `key`: its value when the case is valid and has one, else 0 (a missing
    or invalid case, or a metric that could not be computed, earns nothing)."""
    if record.status is not CaseStatus.OK or record.score is None:
        return 0.0
    value = record.score.metrics.get(key)
    return float(value) if value is not None else 0.0


def mean_over_cases(records: Sequence[CaseRecord], key: str) -> float | None:
    """Mean of `key` over `records`, a case without a valid value counting 0 (e.g. over
    `cases.expected`: the mean over expected cases; over `cases.valid`: over the answered
    ones). None when there is no record."""
    if not records:
        return None
    return sum(case_value(r, key) for r in records) / len(records)


def present_values(records: Iterable[CaseRecord], key: str) -> list[float]:
    """The values of `key` among valid cases that have one (None = not computed: left out)."""
    return [float(v) for r in records
            if r.status is CaseStatus.OK and r.score is not None and (v := r.score.metrics.get(key)) is not None]


def mean_of_present(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None; None when there is none (not applicable, never 0)."""
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def macro_over_classes(per_class: dict[str, float | None]) -> float | None:
    """Macro average over classes: the unweighted mean of the classes that have a value (a class
    absent from reference and prediction is None and left out, as nnU-Net and MONAI do)."""
    return mean_of_present(per_class.values())


def mean_over_present_cases(records: Iterable[CaseRecord], key: str) -> float | None:
    """Mean of `key` over the valid cases that have a value (a diagnostic over answered cases)."""
    return mean_of_present(present_values(records, key))
