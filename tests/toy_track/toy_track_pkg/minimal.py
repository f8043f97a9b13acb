"""A track that is only its contract and its scoring (test-only): no datasets, no scripted
methods, no gold submission, no pictures, no folder layouts, no wording — the optional kit is
left to its defaults (docs/tracks.md "The optional kit").

Per-case layout: `outputs/<case_id>/parity.txt` holds `even` or `odd` for the integer in the
case's `number.txt`; task score = accuracy. Registered through the `automedbench.tracks` entry
point in toy_track_pkg-0.1.dist-info; its data is staged from a plain folder (the generic layout).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from automedbench.tracks.base import (AggregateResult, CaseCheck, CaseScore, MedalBands, OutputFile, ScoredCases,
                                      ScoringContext, SubmissionLayout, SubmittedCase, Track)
from automedbench.tracks.reducers import mean_over_cases
from automedbench.tracks.safety import safe_output_file

ANSWERS = ("even", "odd")


class ParityOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ParityTrack(Track[ParityOptions]):
    # the contract
    name = "toy-parity"
    options_model = ParityOptions

    def submission(self, options: ParityOptions) -> SubmissionLayout:
        return SubmissionLayout(kind="per_case", files=[OutputFile(name="parity.txt",
                                                                   description="`even` or `odd`")])

    # the scoring
    def metric_name(self, options: ParityOptions) -> str:
        return "accuracy"

    def default_bands(self, options: ParityOptions) -> MedalBands:
        return MedalBands(metric="accuracy", good=0.9, okay=0.5)

    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any],
                       options: ParityOptions) -> tuple[Any, dict[str, Any]]:
        answer = (private_case_dir / "parity.txt").read_text().strip()
        if answer not in ANSWERS:
            raise ValueError(f"reference {answer!r} is not one of {list(ANSWERS)}")
        return answer, {}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any],
                   options: ParityOptions) -> CaseCheck:
        path, why = safe_output_file(submitted.dir, "parity.txt") if submitted.dir else (None, "no folder")
        if path is None:
            return CaseCheck(False, why)
        try:
            answer = path.read_text().strip()
        except (OSError, UnicodeDecodeError) as exc:
            return CaseCheck(False, f"parity.txt unreadable: {exc}")
        if answer not in ANSWERS:
            return CaseCheck(False, f"parity.txt says {answer[:20]!r}, not one of {list(ANSWERS)}")
        return CaseCheck(True, "", answer)

    def score_case(self, prediction: Any, reference: Any, options: ParityOptions,
                   context: ScoringContext) -> CaseScore:
        return CaseScore({"correct": float(prediction == reference)})

    def aggregate(self, cases: ScoredCases, options: ParityOptions, context: ScoringContext) -> AggregateResult:
        return AggregateResult(score=mean_over_cases(cases.valid, "correct") or 0.0,
                               metrics={"accuracy": mean_over_cases(cases.expected, "correct")})


TRACK = ParityTrack()
