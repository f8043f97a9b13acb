"""The report-generation track: format checks, findings extraction, scoring and aggregation."""
import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from automedbench.metrics import meteor as meteor_mod
from automedbench.tracks.base import (
    CaseRecord,
    CaseStatus,
    ScoringContext,
    SubmittedCase,
)
from automedbench.scoring.task_score import aggregate_cases
from automedbench.tracks.registry import get_track
from automedbench.tracks.reportgen import scoring
from automedbench.tracks.reportgen.text import extract_findings

TRACK = get_track("report-generation")
OPTS = TRACK.parse_options({})
REF = ("INDICATION: cough.\nFINDINGS:\nThere is a small right pleural effusion. The lungs are otherwise clear. "
       "Heart size is normal.\n\nIMPRESSION:\nSmall right pleural effusion.\n")


def _study(tmp_path: Path, name: str, content: bytes | str | None) -> SubmittedCase:
    d = tmp_path / "outputs" / name
    d.mkdir(parents=True)
    if content is not None:
        (d / "report.txt").write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return SubmittedCase(name, d)


def _ref(tmp_path: Path, name: str = "s1", text: str = REF):
    d = tmp_path / "private" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "report.txt").write_text(text, encoding="utf-8")
    return TRACK.load_reference(d, {}, OPTS)


def test_registered_and_contract_generated():
    layout = TRACK.submission(OPTS)
    assert layout.kind == "per_case" and layout.file_names == ["report.txt"]
    contract = layout.contract("/workspace")
    assert "/workspace/outputs/<case_id>/" in contract and "FINDINGS:" in contract
    assert TRACK.default_bands(OPTS).good == 0.80 and TRACK.default_bands(OPTS).okay == 0.55
    with pytest.raises(ValidationError, match="colour"):
        TRACK.options_model.model_validate({"colour": "red"})
    with pytest.raises(ValidationError, match="components"):
        TRACK.options_model.model_validate({"components": ["bleu", "cider"]})


@pytest.mark.parametrize("text, expected, found", [
    ("FINDINGS: Lungs clear.\nIMPRESSION: Normal.", "Lungs clear.", True),
    ("findings:\nLungs clear.\n\nimpression: normal", "Lungs clear.", True),
    ("Indication: cough\nFindings\nLungs clear.\nComparison: none", "Lungs clear.", True),
    ("  FINDINGS :  Lungs clear.  ", "Lungs clear.", True),
    ("Lungs clear. No effusion.", "Lungs clear. No effusion.", False),
    ("The findings are: lungs clear.", "The findings are: lungs clear.", False),   # not a header
    ("IMPRESSION: normal.", "IMPRESSION: normal.", False),
])
def test_findings_extraction_case_insensitive(text, expected, found):
    assert extract_findings(text) == (expected, found)


@pytest.mark.parametrize("content, reason", [
    (None, "missing"),
    ("", "empty report"),
    ("  \n\t ", "empty report"),
    ("... --- !!!", "no words"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL byte"),
    (b"Lungs \xff\xfe clear", "not valid UTF-8 (byte 0xff at offset 6)"),
    (b"Lungs" + b"\x01\x02\x03\x04\x05\x06" * 3 + b" clear", "control characters"),
    ("word " * 20000, "larger than the 64 KiB limit"),
])
def test_bad_reports_are_invalid_with_a_reason(tmp_path, content, reason):
    check = TRACK.check_case(_study(tmp_path, "s1", content), {}, OPTS)
    assert not check.valid and reason in check.reason and "\n" not in check.reason


def test_symlink_and_directory_are_refused(tmp_path):
    secret = tmp_path / "private.txt"
    secret.write_text("FINDINGS: the reference")
    sub = _study(tmp_path, "s1", None)
    os.symlink(secret, sub.dir / "report.txt")
    check = TRACK.check_case(sub, {}, OPTS)
    assert not check.valid and "symlink" in check.reason
    sub2 = _study(tmp_path, "s2", None)
    (sub2.dir / "report.txt").mkdir()
    check = TRACK.check_case(sub2, {}, OPTS)
    assert not check.valid and "not a regular file" in check.reason


def test_non_ascii_report_is_valid_and_scored(tmp_path):
    ref, _ = _ref(tmp_path, text="FINDINGS: Petit épanchement pleural droit, 5 × 3 cm.")
    check = TRACK.check_case(_study(tmp_path, "s1", "FINDINGS: petit épanchement pleural droit"), {}, OPTS)
    assert check.valid and check.non_trivial
    assert check.prediction.tokens == ["petit", "épanchement", "pleural", "droit"]
    assert TRACK.score_case(check.prediction, ref, OPTS, ScoringContext()).metrics["rougeL"] > 0.6


def test_placeholder_scores_zero_and_is_trivial(tmp_path):
    ref, _ = _ref(tmp_path)
    check = TRACK.check_case(_study(tmp_path, "s1", "N/A"), {}, OPTS)
    assert check.valid and not check.non_trivial
    score = TRACK.score_case(check.prediction, ref, OPTS, ScoringContext())
    assert score.metrics["score"] == 0.0 and "placeholder" in score.extra["reason"]
    assert score.extra["flags"] == [score.extra["reason"]]


def test_only_the_findings_section_is_scored(tmp_path):
    ref, _ = _ref(tmp_path)
    body = "There is a small right pleural effusion. The lungs are otherwise clear. Heart size is normal."
    same = TRACK.check_case(_study(tmp_path, "a", f"Findings:\n{body}\nImpression:\nsomething else entirely"), {}, OPTS)
    noisy = TRACK.check_case(_study(tmp_path, "b", f"{body} Impression is something else entirely"), {}, OPTS)
    s_same = TRACK.score_case(same.prediction, ref, OPTS, ScoringContext()).metrics
    s_noisy = TRACK.score_case(noisy.prediction, ref, OPTS, ScoringContext()).metrics
    assert s_same["rougeL"] == pytest.approx(1.0) and s_same["bleu"] == pytest.approx(1.0)
    assert s_noisy["rougeL"] < 0.9
    # section: full scores the whole text on both sides
    full = TRACK.parse_options({"section": "full"})
    ref_full, _ = TRACK.load_reference(tmp_path / "private" / "s1", {}, full)
    same_full = TRACK.check_case(SubmittedCase("a", tmp_path / "outputs" / "a"), {}, full).prediction
    assert "indication" in ref_full.tokens and "impression" in same_full.tokens
    assert TRACK.score_case(same_full, ref_full, full, ScoringContext()).metrics["rougeL"] < 0.9


def _records(tmp_path, reports: dict[str, str | None], ref_error: set[str] = frozenset()):
    recs = []
    for name, content in reports.items():
        if name in ref_error:
            recs.append(CaseRecord(name, {}, CaseStatus.REFERENCE_ERROR, reason="unreadable"))
            continue
        ref, meta = _ref(tmp_path, name)
        if content is None:
            recs.append(CaseRecord(name, {}, CaseStatus.MISSING, reference=ref))
            continue
        check = TRACK.check_case(_study(tmp_path, name, content), meta, OPTS)
        if not check.valid:
            recs.append(CaseRecord(name, {}, CaseStatus.INVALID, reason=check.reason, reference=ref))
            continue
        recs.append(CaseRecord(name, {}, CaseStatus.OK, TRACK.score_case(check.prediction, ref, OPTS, ScoringContext()),
                               prediction=check.prediction, reference=ref))
    return recs


def test_aggregate_is_metric_times_completion_and_names_components(tmp_path, wordnet):
    recs = _records(tmp_path, {"a": REF, "b": REF, "c": None, "d": "", "e": REF}, ref_error={"e"})
    agg = aggregate_cases(TRACK, recs, OPTS, ScoringContext())
    # a and b perfect, c missing, d invalid, e excluded (harness fault): 2 of 4 expected
    assert agg.metrics["n_expected"] == 4 and agg.metrics["completion"] == 0.5
    assert agg.metrics["bleu"] == pytest.approx(0.5) and agg.metrics["rougeL"] == pytest.approx(0.5)
    assert 0.49 < agg.metrics["meteor"] < 0.5            # METEOR's fragmentation penalty on a perfect match
    assert agg.components == ["bleu", "rougeL", "meteor"]
    assert agg.score == pytest.approx((agg.metrics["bleu"] + agg.metrics["rougeL"] + agg.metrics["meteor"]) / 3)
    assert agg.metrics["corpus_bleu4"] == pytest.approx(1.0)   # over the scored studies
    assert agg.metrics["distinct_reports"] == 0.5               # a and b are the same text
    # weight-backed metrics: null with a reason, never a silent 0 or substitute
    for c in ("radgraph_f1", "chexbert_micro_f1"):
        assert agg.metrics[c] is None and "radiology" in agg.notes[c]


def test_meteor_without_wordnet_is_null_with_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEDBENCH_WORDNET", str(tmp_path / "nowhere"))
    monkeypatch.setattr(meteor_mod, "DEBIAN_WORDNET", tmp_path / "no-debian")
    monkeypatch.setattr("nltk.data.path", [str(tmp_path / "no-nltk-data")])
    meteor_mod.load_wordnet.cache_clear()
    scoring.meteor_scorer.cache_clear()
    try:
        recs = _records(tmp_path, {"a": REF, "b": None})
        agg = aggregate_cases(TRACK, recs, OPTS, ScoringContext())
        assert agg.metrics["meteor"] is None and "WordNet not found" in agg.notes["meteor"]
        assert agg.components == ["bleu", "rougeL"]
        assert agg.score == pytest.approx(0.5)
        assert recs[0].score.metrics["meteor"] is None and recs[0].score.metrics["score"] == pytest.approx(1.0)
    finally:
        meteor_mod.load_wordnet.cache_clear()
        scoring.meteor_scorer.cache_clear()


def test_task_may_ask_for_fewer_components(tmp_path):
    recs = _records(tmp_path, {"a": REF})
    agg = aggregate_cases(TRACK, recs, TRACK.parse_options({"components": ["bleu", "rougeL"]}), ScoringContext())
    assert agg.components == ["bleu", "rougeL"] and agg.notes["meteor"] == "not requested by this task"


def test_no_valid_report_scores_zero(tmp_path):
    agg = aggregate_cases(TRACK, _records(tmp_path, {"a": None, "b": "\x00"}), OPTS, ScoringContext())
    assert agg.score == 0.0 and agg.metrics["completion"] == 0.0
    assert aggregate_cases(TRACK, [], OPTS, ScoringContext()).score == 0.0


def test_unreadable_reference_raises_for_the_core(tmp_path):
    (tmp_path / "private" / "x").mkdir(parents=True)
    with pytest.raises(OSError):
        TRACK.load_reference(tmp_path / "private" / "x", {}, OPTS)
    (tmp_path / "private" / "x" / "report.txt").write_text("FINDINGS:\n\nIMPRESSION: normal")
    with pytest.raises(ValueError, match="no words"):
        TRACK.load_reference(tmp_path / "private" / "x", {}, OPTS)
