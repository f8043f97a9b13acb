"""The Track protocol: what a track knows (its output contract and metric), nothing more.

The core runs the workflow; a track only answers:
  - which files each case must produce            (`output_files`)
  - is one case's output well-formed               (`check_case`, pure)
  - how good is it against the reference           (`score_case`, pure)
  - what is the task score over all cases          (`aggregate`, pure)
and how to load a case from disk (`load_prediction` / `load_reference`, the only I/O).
Medal bands live in tracks/bands.yaml, not in code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


@dataclass
class CaseCheck:
    valid: bool
    reason: str = ""
    # the loaded, validated prediction, passed on to score_case (avoids a second read)
    prediction: Any = None


@dataclass
class CaseScore:
    metrics: dict[str, float | None]
    extra: dict[str, Any] = field(default_factory=dict)


class Track(Protocol):
    name: str
    metric_name: str

    def check_case(self, case_dir: Path, reference_meta: dict[str, Any], options: dict[str, Any]) -> CaseCheck:
        """Read and validate one case's outputs. Never raises for bad agent output."""

    def score_case(self, prediction: Any, reference: Any, options: dict[str, Any]) -> CaseScore: ...

    def load_reference(self, private_case_dir: Path, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(reference data, meta used by check_case e.g. the expected shape)."""

    def aggregate(self, per_case: list[CaseScore | None], options: dict[str, Any]) -> float:
        """Task score over ALL expected cases; None = missing/invalid case, scores 0."""
