"""The track seam (docs/tracks.md): the core applies the scoring rules once, whatever a track's
`aggregate` does; every optional capability is declared; options are typed and unknown keys
are refused by every track."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from toy_track_pkg import ToyTrack, build_toy_values

from automedbench.data import DatasetPaths
from automedbench.scoring.task_score import aggregate_cases, score_workspace
from automedbench.tracks import TrackError, all_tracks, register
from automedbench.tracks.base import (AggregateResult, CaseRecord, CaseScore, CaseStatus, ScoredCases,
                                      ScoringContext)
from automedbench.tracks.reducers import macro_over_classes, mean_of_present, mean_over_cases

SRC = Path(__file__).resolve().parents[1] / "src" / "automedbench"


class NaiveToy(ToyTrack):
    """A track that knows nothing of the rules: its aggregate averages whatever record has a
    score and remembers which records it was handed."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.called = False

    def aggregate(self, cases: ScoredCases, options: Any, context: ScoringContext) -> AggregateResult:
        self.called = True
        self.seen = [r.case_id for r in cases.expected]
        scored = [r.score.metrics["correct"] or 0.0 for r in cases.expected if r.score is not None]
        return AggregateResult(score=sum(scored) / len(scored) if scored else 0.0)


@pytest.fixture
def toy(tmp_path):
    paths = DatasetPaths(tmp_path / "toy")
    manifest = build_toy_values(paths, n_cases=6)
    cases = [{k: v for k, v in c.items() if k != "files"} for c in manifest["cases"]]
    track = NaiveToy()
    options = track.parse_options({})
    ws = tmp_path / "ws"
    (ws / "outputs").mkdir(parents=True)
    track.gold_submission(paths.root, ws / "outputs", options)
    return paths, cases, track, options, ws


def _rows(ws: Path, keep: dict[str, str]) -> None:
    lines = ["case_id,label"] + [f"{cid},{label}" for cid, label in keep.items()]
    (ws / "outputs" / "labels.csv").write_text("\n".join(lines) + "\n")


def test_the_core_excludes_reference_errors_and_counts_missing_and_invalid_cases_zero(toy):
    paths, cases, track, options, ws = toy
    labels = {c["case_id"]: c["label"] for c in cases}
    (paths.private / "case_005" / "label.txt").unlink()     # our reference: unreadable
    del labels["case_000"]                                  # the agent skipped a case
    labels["case_001"] = "medium"                           # and wrote a label outside the set
    _rows(ws, labels)
    result, _ = score_workspace(track, ws, paths.private, cases, options)
    status = {c.case_id: c.status for c in result.per_case}
    assert status["case_005"] == "reference_error" and status["case_000"] == "missing"
    assert status["case_001"] == "invalid"
    assert "case_005" not in track.seen and len(track.seen) == 5
    # the naive aggregate says 1.0 (every scored case is right); the core makes it 3 right of 5
    # expected: the excluded case is out, the missing and the invalid one count 0
    assert result.score == pytest.approx(3 / 5)
    assert result.excluded_cases == ["case_005"] and result.completion_rate == pytest.approx(3 / 5)


def test_no_scorable_case_scores_zero_without_asking_the_track(toy):
    paths, cases, track, options, ws = toy
    records = [CaseRecord(c["case_id"], c, CaseStatus.REFERENCE_ERROR, reason="unreadable") for c in cases]
    agg = aggregate_cases(track, records, options)
    assert agg.score == 0.0 and not track.called and "no scorable case" in agg.notes["score"]


def test_a_non_finite_track_score_is_refused_with_the_tracks_name(toy):
    paths, cases, track, options, ws = toy

    class Broken(NaiveToy):
        def aggregate(self, cases: ScoredCases, options: Any, context: ScoringContext) -> AggregateResult:
            return AggregateResult(score=float("nan"))

    with pytest.raises(ValueError, match="toy-threshold.*non-finite"):
        score_workspace(Broken(), ws, paths.private, cases, options)


def test_a_declared_capability_changes_what_the_core_keeps(toy):
    paths, cases, track, options, ws = toy
    kept: dict[str, list[Any]] = {}

    class Lean(NaiveToy):
        aggregate_uses_case_data = False

        def aggregate(self, cases: ScoredCases, options: Any, context: ScoringContext) -> AggregateResult:
            kept["predictions"] = [r.prediction for r in cases.valid]
            return super().aggregate(cases, options, context)

    score_workspace(Lean(), ws, paths.private, cases, options)
    assert kept["predictions"] and all(p is None for p in kept["predictions"])
    score_workspace(track, ws, paths.private, cases, options)   # default: the data stays
    assert track.called


@pytest.mark.parametrize("name", sorted(all_tracks()))
def test_every_track_refuses_unknown_option_keys(name):
    track = all_tracks()[name]
    with pytest.raises(ValidationError, match="no_such_option"):
        track.parse_options({"no_such_option": 1})
    defaults_or_model = track.options_model.model_fields
    if all(not f.is_required() for f in defaults_or_model.values()):
        model = track.parse_options(None)
        assert track.parse_options(model) is model


def test_the_registry_names_what_a_non_track_lacks():
    class HalfTrack:
        name = "half"

        def submission(self, options: Any) -> None: ...

    with pytest.raises(TrackError, match=r"TrackScoring\.aggregate.*TrackAssets\.datasets|TrackAssets.*TrackScoring"):
        register(HalfTrack())


def test_the_core_reads_no_undeclared_track_attribute():
    """Optional capabilities are declared on the protocols (tracks/base.py): the core never
    asks a track object for an attribute through getattr/hasattr."""
    pattern = re.compile(r"\b(getattr|hasattr)\(\s*(task\.track_impl|track|t)\b")
    hits = [f"{p.relative_to(SRC)}:{i}" for p in SRC.rglob("*.py") if "tracks/" not in str(p.relative_to(SRC))
            for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert hits == []


def _rec(cid: str, status: CaseStatus, **metrics: float | None) -> CaseRecord:
    return CaseRecord(cid, {}, status, score=CaseScore(dict(metrics)) if status is CaseStatus.OK else None)


def test_reducers_follow_the_core_rules():
    recs = [_rec("a", CaseStatus.OK, dice=0.9), _rec("b", CaseStatus.OK, dice=None),
            _rec("c", CaseStatus.MISSING), _rec("d", CaseStatus.INVALID)]
    assert mean_over_cases(recs, "dice") == pytest.approx(0.9 / 4)   # no value = 0 over cases
    assert mean_over_cases([], "dice") is None
    assert mean_of_present([0.5, None, 1.0]) == pytest.approx(0.75) and mean_of_present([None]) is None
    assert macro_over_classes({"liver": 1.0, "tumour": None, "kidney": 0.5}) == pytest.approx(0.75)
