"""Findings that agree (docs/tracks/report-generation.md "Findings that agree"; issue 45, item 4):
the same finding said with another side, zone or size, or with the other polarity, is a
contradiction; the same finding said in other words is a match; two different findings never
match. Real sentences of the demo's reference and the reference writer's wording."""
from __future__ import annotations

import pytest

from automedbench.tracks.base import ScoringContext
from automedbench.tracks.reportgen.matching import CONTRADICTS, compare, read_sentence
from automedbench.tracks.reportgen.options import ReportGenOptions
from automedbench.tracks.reportgen.text import Report
from automedbench.tracks.reportgen.track import ReportGenerationTrack

REF = "There is a well-circumscribed 19 mm nodule in the right lower zone."


def _marks(generated: str, reference: str) -> tuple[list[str], list[str], list[str]]:
    a = compare(generated, reference)
    return [s.mark for s in a.reference], [s.mark for s in a.generated], a.conflicts


@pytest.mark.parametrize("generated, conflict", [
    # the example: another size and another zone
    ("There is a 29 mm nodular opacity in the right upper zone.",
     "nodule: generated upper zone, 29 mm; ground truth lower zone, 19 mm"),
    ("There is a 19 mm nodular opacity in the left lower zone.", "nodule: generated left side; ground truth right side"),
    ("There is a 19 mm nodular opacity in the right upper zone.", "nodule: generated upper zone; ground truth lower zone"),
    ("There is a 2.9 cm nodule in the right lower zone.", "nodule: generated 29 mm; ground truth 19 mm"),
    ("No pulmonary nodule is seen.", "nodule: generated absent; ground truth present"),
])
def test_the_same_finding_placed_otherwise_is_a_contradiction(generated, conflict):
    ref, gen, conflicts = _marks(generated, REF)
    assert ref == ["contradicted"] and gen == ["contradicts"]
    assert conflicts == [conflict]


@pytest.mark.parametrize("generated", [
    "There is a 19 mm nodular opacity in the right lower zone.",
    "Right lower zone nodule of about 2 cm.",            # 20 mm: within 2 mm
    "A nodule is seen in the right lower zone.",           # no size said: nothing to contradict
])
def test_the_same_finding_in_other_words_is_matched(generated):
    ref, gen, conflicts = _marks(generated, REF)
    assert ref == ["matched"] and gen == ["matched"] and conflicts == []


def test_negation_knows_its_scope():
    # a denial against an affirmation is a contradiction, both ways
    ref, gen, conflicts = _marks("No pleural effusion or pneumothorax.",
                                 "There is a small right pleural effusion with blunting of the right costophrenic angle.")
    assert ref == ["contradicted"] and conflicts == ["pleural effusion: generated absent; ground truth present"]
    # what follows "but" is not denied; a cue after the finding denies it
    s = read_sentence("No pneumothorax, but there is a left pleural effusion.")
    assert {(m.finding, m.negated) for m in s.mentions} == {("pneumothorax", True), ("pleural effusion", False)}
    assert read_sentence("A nodule is not seen.").mentions[0].negated
    assert not read_sentence("A transverse fracture crosses the mid tibial shaft without displacement.").mentions[0].negated
    # two denials placed differently never contradict; a denial and an affirmation placed
    # differently speak of different things
    assert _marks("No left pleural effusion.", "No right pleural effusion.")[2] == []
    assert _marks("No left pleural effusion.", "There is a right pleural effusion.")[2] == []


def test_different_findings_never_match():
    ref, gen, conflicts = _marks("There is a 19 mm mass in the right lower zone.", REF)
    assert ref == ["missing"] and gen == ["extra"] and conflicts == []
    ref, _, conflicts = _marks("There is a small pericardial effusion.", "There is a small left pleural effusion.")
    assert ref == ["missing"] and conflicts == []
    # a finding said in a sentence that shares words with another is not matched by those words
    ref, _, _ = _marks("There is a 17 mm nodular opacity in the left lower zone.",
                       "There is patchy airspace consolidation in the right lower zone.")
    assert ref == ["missing"]


def test_a_bone_zone_is_a_zone():
    ref, _, conflicts = _marks("There is a transverse fracture of the mid tibial shaft.",
                               "There is a nondisplaced transverse fracture of the proximal tibial shaft.")
    assert ref == ["contradicted"] and conflicts == ["fracture: generated middle zone; ground truth proximal zone"]


def test_each_scored_study_has_a_why_and_a_contradiction_is_flagged():
    track, opts = ReportGenerationTrack(), ReportGenOptions()
    ref = Report.from_text(f"FINDINGS:\n{REF} No pneumothorax. The cardiomediastinal silhouette is normal.\n")
    bad = Report.from_text("FINDINGS:\nThere is a 29 mm nodular opacity in the right upper zone. No pneumothorax.\n")
    score = track.score_case(bad, ref, opts, ScoringContext())
    assert score.extra["why"] == ("contradicts the ground truth: nodule: generated upper zone, 29 mm; ground truth lower "
                                  "zone, 19 mm · 1 of 3 ground-truth sentences matched, 1 missing, 1 contradicted")
    assert score.extra["flags"] == [CONTRADICTS]
    good = track.score_case(ref, ref, opts, ScoringContext())
    assert good.extra["why"] == "3 of 3 ground-truth sentences matched, 0 missing, 0 contradicted"
    assert "flags" not in good.extra
