"""Answer normalisation, strict yes/no, EM/token-F1 and the MCQ label parser."""
from __future__ import annotations

import random
import re
import string
from collections import Counter

import pytest
import yaml

from automedbench.metrics.answer_match import (
    TABLE_PATH,
    AnswerTable,
    canonical_tokens,
    is_placeholder,
    load_table,
    parse_choice,
    polarity,
    score_open,
    token_f1,
)


@pytest.mark.parametrize("a, b", [
    ("Magnetic Resonance Imaging (MRI).", "mri"), ("MR", "MRI"), ("computed tomography", "CT"),
    ("X-ray", "radiograph"), ("  The   AXIAL plane ", "axial"), ("transverse", "axial"),
    ("Two", "2"), ("none", "0"), ("Ultrasonography", "ultrasound"), ("left-sided", "left sided"),
])
def test_normalisation_equates_spellings(a, b):
    t = load_table()
    assert canonical_tokens(a, t) == canonical_tokens(b, t)
    assert score_open(a, [b])["score"] == 1.0


@pytest.mark.parametrize("a, b", [("CT", "MRI"), ("axial", "coronal"), ("2", "3"), ("2.5", "25")])
def test_normalisation_keeps_different_answers_apart(a, b):
    assert score_open(a, [b])["score"] == 0.0


@pytest.mark.parametrize("prediction, reference, expected", [
    ("yes", "yes", 1.0), ("Yes.", "yes", 1.0), ("present", "yes", 1.0), ("yes, one lesion", "yes", 1.0),
    ("no", "yes", 0.0), ("No, there is none", "no", 1.0), ("not present", "no", 1.0),
    ("probably yes", "yes", 0.0),          # strict: a hedge is not a yes
    ("yes and no", "no", 0.0), ("", "no", 0.0), ("maybe", "yes", 0.0),
])
def test_yes_no_is_strict(prediction, reference, expected):
    result = score_open(prediction, [reference])
    assert result["rule"] == "yes_no"
    assert result["score"] == expected


def test_open_answers_take_max_of_em_and_f1_over_alternatives():
    r = score_open("lung", ["right lung"])            # less specific: token-F1 partial credit
    assert (r["em"], r["f1"], r["score"]) == (0.0, pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert score_open("thorax", ["lungs", "chest"])["score"] == 1.0      # an alternative + synonym
    assert score_open("the right upper lobe", ["upper lobe"])["score"] == pytest.approx(0.8)
    # a different side or lobe is a different finding: no credit for the shared tokens
    # (docs/tracks/vqa.md "Different findings never match")
    assert score_open("left lung", ["right lung"])["score"] == 0.0
    assert score_open("the right upper lobe", ["right lower lobe"])["score"] == 0.0


def _squad_f1(prediction_tokens: list[str], ground_truth_tokens: list[str]) -> float:
    """f1_score of the official SQuAD v1.1 evaluation script, on already-normalised tokens."""
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def _random_token_lists(n: int):
    rng = random.Random(7)
    vocab = ["lung", "left", "right", "mass", "2", "ct", "lobe", "upper", "x"]
    for _ in range(n):
        yield ([rng.choice(vocab) for _ in range(rng.randint(1, 6))],
               [rng.choice(vocab) for _ in range(rng.randint(1, 6))])


def test_token_f1_matches_the_official_squad_function():
    for pred, ref in _random_token_lists(500):
        assert token_f1(tuple(pred), tuple(ref)) == pytest.approx(_squad_f1(pred, ref), abs=1e-12)


def test_token_f1_matches_rouge1_f_from_rouge_score():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

    class Whitespace:
        def tokenize(self, text):
            return text.split()

    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=Whitespace())
    for pred, ref in _random_token_lists(300):
        expected = scorer.score(" ".join(ref), " ".join(pred))["rouge1"].fmeasure
        assert token_f1(tuple(pred), tuple(ref)) == pytest.approx(expected, abs=1e-12)


OPTIONS = {"A": "Coronal", "B": "Sagittal", "C": "Axial", "D": "Oblique"}


@pytest.mark.parametrize("text, label, rule", [
    ("B", "B", "label"), ("(b)", "B", "label"), ("C.", "C", "label"),
    ("The answer is C.", "C", "statement"), ("Answer: (D)", "D", "statement"), ("answer: d", "D", "statement"),
    ("C. Axial", "C", "leading"), ("(D) Oblique", "D", "leading"), ("I would say (B)", "B", "parenthesised"),
    ("axial plane", "C", "option_text"), ("Transverse", "C", "option_text"),
])
def test_parse_choice_reads_labels_embedded_in_text(text, label, rule):
    assert parse_choice(text, OPTIONS, OPTIONS) == (label, rule)


@pytest.mark.parametrize("text", ["A lesion is seen", "the answer is a lesion", "A or B", "(A) or (B)",
                                  "E", "", "   ", "somewhere in the brain"])
def test_parse_choice_refuses_ambiguous_or_absent_labels(text):
    label, why = parse_choice(text, OPTIONS, OPTIONS)
    assert label is None and why


@pytest.mark.parametrize("text, expected", [
    ("unknown", True), ("N/A", True), ("n.a.", True), ("I don't know", True), ("", True), (None, True),
    ("TBD", True), ("axial", False), ("no", False), ("0", False),
])
def test_placeholders(text, expected):
    assert is_placeholder(text, load_table()) is expected


def test_the_rules_live_in_the_table_not_the_code(tmp_path):
    raw = yaml.safe_load(TABLE_PATH.read_text())
    assert score_open("angiogram", ["angiography"], load_table())["score"] == 0.0
    raw["phrases"]["angiography"] = ["angiogram"]
    raw["yes_no"]["yes"].append("si")
    table = AnswerTable.from_mapping(raw)
    assert score_open("angiogram", ["angiography"], table)["score"] == 1.0
    assert polarity("si", table) == "yes" and polarity("si", load_table()) is None


def test_table_is_well_formed():
    raw = yaml.safe_load(TABLE_PATH.read_text())
    assert {"phrases", "number_words", "drop", "yes_no", "placeholders"} <= set(raw)
    table = load_table()
    assert table.yes.isdisjoint(table.no)
    for canonical in raw["phrases"]:
        # a canonical form must itself be stable under the table
        assert canonical_tokens(canonical, table) == tuple(canonical.split()), canonical
    assert all(re.fullmatch(r"[a-z0-9 ]+", p) for p in table.placeholders), "placeholders are basic forms"
    assert set(string.ascii_lowercase) & set(table.drop) >= {"a"}
